import { describe, expect, it } from 'vitest';
import {
  compactionItem,
  encodeCompaction,
  expandGatewayCompactions,
  gatewaySummary,
  summaryText,
} from './compaction-item.js';

describe('gateway compaction items', () => {
  it('encode the summary as gw1: + base64url JSON, and read it back', () => {
    const content = encodeCompaction('They want a café — with "quotes".');
    expect(content).toMatch(/^gw1:[A-Za-z0-9_-]+$/);
    const decoded: unknown = JSON.parse(Buffer.from(content.slice(4), 'base64url').toString('utf8'));
    expect(decoded).toEqual({ summary: 'They want a café — with "quotes".' });
    const item = compactionItem('s');
    expect(item).toMatchObject({ type: 'compaction', id: expect.stringMatching(/^cmp_/) });
    expect(gatewaySummary(item)).toBe('s');
  });

  it('do not read native or malformed items', () => {
    expect(gatewaySummary({ type: 'compaction', encrypted_content: 'gAAAA-native' })).toBeUndefined();
    expect(gatewaySummary({ type: 'compaction', encrypted_content: 'gw1:!!not-json' })).toBeUndefined();
    expect(
      gatewaySummary({ type: 'compaction', encrypted_content: encodeCompaction('x').replace('gw1', 'gw2') }),
    ).toBeUndefined();
    expect(gatewaySummary({ type: 'message', encrypted_content: encodeCompaction('x') })).toBeUndefined();
  });

  it('expand only gateway items into the user message carrying the summary', () => {
    const native = { type: 'compaction', id: 'cmp_n', encrypted_content: 'gAAAA-native' };
    const ours = { type: 'compaction', id: 'cmp_g', encrypted_content: encodeCompaction('Earlier: a cafe.') };
    const body = { model: 'm', input: [native, ours, { role: 'user', content: 'next' }] };
    expect(expandGatewayCompactions(body)).toEqual({
      model: 'm',
      input: [
        native,
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: summaryText('Earlier: a cafe.') }],
        },
        { role: 'user', content: 'next' },
      ],
    });
    const untouched = { model: 'm', input: [native] };
    expect(expandGatewayCompactions(untouched)).toBe(untouched);
  });
});
