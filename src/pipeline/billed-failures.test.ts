import { describe, expect, it } from 'vitest';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { billTimedOutCalls } from './billed-failures.js';
import type { ExecutionTarget } from './execute.js';
import type { Run } from './run.js';

describe('billTimedOutCalls', () => {
  // Bug: the log line held String(error), whose message may quote the prompt (logs never carry prompt text).
  it('logs a count that failed without the error message, which may quote the prompt', async () => {
    const logs: string[] = [];
    const run = {
      ctx: { requestId: 'req_1' },
      billedFailures: [],
      deps: {
        log: (line: string) => logs.push(line),
        tokenCounter: {
          load: () => Promise.reject(new TypeError('cannot count "my card is 4111 1111 1111 1111"')),
        },
      },
    } as unknown as Run;
    const sent = { model: 'm', messages: [{ role: 'user', content: 'my card is 4111 1111 1111 1111' }] };
    const target = {
      role: 'executor',
      prompt: { sent, kind: 'chat' },
    } as unknown as ExecutionTarget<unknown>;
    await billTimedOutCalls(run, target, [{ provider: 'p' } as ResolvedEndpoint]);
    expect(run.billedFailures).toEqual([]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('req_1: the prompt of a timed-out call could not be counted: TypeError');
    expect(logs[0]).not.toContain('4111');
  });
});
