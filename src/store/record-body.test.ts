import { describe, expect, it } from 'vitest';
import { recordJson } from '../records/generation-record.js';
import { recordBody, recordRow, storedRecord } from './record-body.js';
import { makeRecord } from './store-contract.js';

/** A successful request's record as the gateway makes it: one attempt, every other field at its usual value. */
const typical = makeRecord({
  createdAt: '2026-11-30T22:26:12.533Z',
  planningInputTokens: 0,
  planningOutputTokens: 0,
  planningCost: 0,
  loadedTools: '',
  routingCost: 0,
  optimizationPercentage: 0,
  skills: '',
  cached: false,
  costSavedNanoUsd: 0,
  reqCost: 0.000064,
  attempts: [
    { provider: 'fast-cloud', model: 'chat-large', outcome: 'success', status: null, durationMs: 43 },
  ],
  warnings: [],
});

/** The row a store returns for a record: its columns under the names record-body.ts selects them as. */
function rowOf(record: ReturnType<typeof makeRecord>, body: string) {
  const { createdMs } = recordRow(record);
  return {
    gen_id: record.genId,
    org_id: record.orgId,
    key_id: record.apiKeyId,
    model: record.model,
    provider: record.provider,
    path: record.path,
    status: record.status,
    http_status: record.httpStatus,
    streamed: record.streamed ? 1 : 0,
    input_tokens: record.inputTokens,
    output_tokens: record.outputTokens,
    cached_input_tokens: record.cachedInputTokens,
    reasoning_tokens: record.reasoningTokens,
    cost_nano: String(record.costNanoUsd),
    total_duration_ms: record.totalDurationMs,
    first_token_ms: record.durationMsToFirstToken,
    created_ms: createdMs,
    tag: record.tag,
    score: record.score,
    planning_status: record.planningStatus,
    body,
  };
}

describe('a stored record body', () => {
  it('holds only what no column holds and what differs from its usual value', () => {
    const body = recordRow(typical).body;
    expect(JSON.parse(body)).toStrictEqual({ reqCost: 0.000064, attempts: typical.attempts });
    expect(body.length).toBeLessThan(recordJson(typical).length / 4);
  });

  it('keeps a field no column holds whatever its name, so a field added to records later is stored too', () => {
    const later = { ...typical, servedRegion: 'eu-west', attemptsBudget: 0 } as typeof typical;
    expect(JSON.parse(recordBody(later, Date.parse(typical.createdAt)))).toStrictEqual({
      reqCost: 0.000064,
      attempts: typical.attempts,
      servedRegion: 'eu-west',
      attemptsBudget: 0,
    });
  });

  it('keeps the creation time as written when the column cannot give it back', () => {
    const ms = Date.parse('2026-03-14T15:09:26.535Z');
    expect(
      JSON.parse(recordBody({ ...typical, createdAt: '2026-03-14T15:09:26.535Z' }, ms)),
    ).not.toHaveProperty('createdAt');
    expect(JSON.parse(recordBody({ ...typical, createdAt: '2026-03-14T15:09:26.5351Z' }, ms))).toHaveProperty(
      'createdAt',
      '2026-03-14T15:09:26.5351Z',
    );
  });

  it('gives the record back from columns and body, in the record’s own key order', () => {
    for (const record of [
      typical,
      makeRecord(),
      makeRecord({ errorCode: 'x', errorMessage: 'y', streamed: false }),
    ]) {
      const read = storedRecord(rowOf(record, recordRow(record).body));
      expect(read).toStrictEqual(record);
      expect(JSON.stringify(read)).toBe(recordJson(record));
    }
  });

  it('reads a body that holds the whole record (rows stored before bodies were cut down) as it is', () => {
    const older = makeRecord({ tag: 'from-the-body' });
    // The columns disagree on purpose: such a row's body is the record.
    const read = storedRecord({ ...rowOf(older, JSON.stringify(older)), tag: 'from-the-column' });
    expect(read).toStrictEqual(older);
  });

  it('refuses a row whose body is not a JSON object, or whose columns no record could have', () => {
    expect(() => storedRecord(rowOf(typical, '[1]'))).toThrow(/not a JSON object/);
    expect(() => storedRecord(rowOf(typical, 'null'))).toThrow(/not a JSON object/);
    expect(() => storedRecord({ ...rowOf(typical, '{}'), status: 'lost' })).toThrow();
    expect(() => storedRecord({ ...rowOf(typical, '{}'), cost_nano: '1.5' })).toThrow();
  });
});
