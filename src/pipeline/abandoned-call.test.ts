import { describe, expect, it } from 'vitest';
import { abandonedCallReport } from './abandoned-call.js';
import type { Run } from './run.js';

/** A run whose client left while provider `p` worked, and whose tokenizer throws with the prompt in its message. */
function abandonedRun() {
  const logs: string[] = [];
  const run = {
    ctx: { requestId: 'req_1' },
    warnings: [],
    reservations: [],
    abandonedCalls: [{ role: 'executor', modelId: 'm', endpoint: { provider: 'p' } }],
    deps: {
      log: (line: string) => logs.push(line),
      tokenCounter: {
        load: () => Promise.reject(new TypeError('cannot count "my card is 4111 1111 1111 1111"')),
      },
    },
  } as unknown as Run;
  return { run, logs };
}

describe('abandonedCallReport', () => {
  // Bug: the log line held String(error), whose message may quote the prompt (logs never carry prompt text).
  it('logs a count that failed without the error message, which may quote the prompt', async () => {
    const { run, logs } = abandonedRun();
    const sent = { model: 'm', messages: [{ role: 'user', content: 'my card is 4111 1111 1111 1111' }] };
    expect(await abandonedCallReport(run, sent, 'chat')).toBeUndefined();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('req_1: the prompt of an abandoned call could not be counted: TypeError');
    expect(logs[0]).not.toContain('4111');
  });
});
