import { describe, expect, it } from 'vitest';
import type { Run } from '../pipeline/run.js';
import { buildRecord } from './build-record.js';
import { recordJson } from './generation-record.js';

/** The parts of a run that a record is built from. */
function run(): Run {
  return {
    genId: 'gen_1',
    principal: { org: { id: 'acme' }, keyId: 'key_1' },
    ctx: { req: { url: '/v1/chat/completions?x=1' } },
    startedAt: 0,
    createdAt: '2026-11-28T12:00:00.000Z',
    attempts: [{ provider: 'fast-cloud', status: 200, durationMs: 5 }],
    warnings: ['first'],
  } as unknown as Run;
}

describe('buildRecord', () => {
  it('takes a snapshot of the run: what the run adds later changes neither the record nor its JSON', () => {
    const running = run();
    const record = buildRecord({
      run: running,
      streamed: false,
      model: 'm',
      routingCostNano: 0,
      endedAt: 10,
      httpStatus: 200,
      zdr: false,
    });
    const json = recordJson(record);
    running.warnings.push('later');
    running.attempts.push({ ...(running.attempts[0] as Run['attempts'][number]) });
    expect(record.warnings).toEqual(['first']);
    expect(record.attempts).toHaveLength(1);
    expect(recordJson(record)).toBe(json);
    expect(JSON.stringify(record)).toBe(json);
    expect(record.path).toBe('/v1/chat/completions');
  });
});
