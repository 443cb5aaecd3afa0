import { describe, expect, it } from 'vitest';
import { reasoningItem, summaryRequested, summaryWarnings, thinkingBlocksOf } from './reasoning-item.js';

const BLOCKS = [
  { type: 'thinking', thinking: 'Call the tool for Paris.', signature: 'sig_1' },
  { type: 'redacted_thinking', data: 'opaque' },
];

describe('reasoningItem', () => {
  // Bug (compat cell responses|anthropic|reasoning-tools): nothing carried Claude's signed thinking through a
  // Responses client, so the tool-use turn went back to Anthropic without it (400).
  it('carries thinking blocks in encrypted_content that thinkingBlocksOf reads back', () => {
    const item = reasoningItem('rs_1', BLOCKS);
    expect(item).toStrictEqual({
      id: 'rs_1',
      type: 'reasoning',
      summary: [],
      encrypted_content: expect.stringMatching(/^gateway-thinking-v1:[A-Za-z0-9+/]+=*$/),
    });
    expect(thinkingBlocksOf(JSON.parse(JSON.stringify(item)))).toStrictEqual(BLOCKS);
  });

  it('does not read an encrypted_content that is not ours', () => {
    expect(
      thinkingBlocksOf({ type: 'reasoning', summary: [], encrypted_content: 'gAAAAABo' }),
    ).toBeUndefined();
    expect(thinkingBlocksOf({ type: 'reasoning', summary: [] })).toBeUndefined();
  });

  it('reads nothing replayable from a damaged encrypted_content of ours', () => {
    expect(
      thinkingBlocksOf({ type: 'reasoning', encrypted_content: 'gateway-thinking-v1:!!' }),
    ).toStrictEqual([]);
  });
});

describe('reasoning summaries over chat', () => {
  const asked = { model: 'm', input: 'hi', reasoning: { effort: 'low', summary: 'auto' } };
  const summarized = { output: [reasoningItem('rs_1', [], 'Greet back.'), { type: 'message' }] };

  it('are asked for by reasoning.summary (or generate_summary) set and not null', () => {
    expect(summaryRequested(asked)).toBe(true);
    expect(summaryRequested({ reasoning: { generate_summary: 'concise' } })).toBe(true);
    expect(summaryRequested({ reasoning: { effort: 'low', summary: null } })).toBe(false);
    expect(summaryRequested({ reasoning: { effort: 'low' } })).toBe(false);
    expect(summaryRequested({})).toBe(false);
  });

  it('hold the reasoning text as one summary_text part, without encrypted_content when nothing is signed', () => {
    expect(summarized.output[0]).toStrictEqual({
      id: 'rs_1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Greet back.' }],
    });
  });

  // Bug: "reasoning.summary is not supported by this provider" was sent for every translated request, also to
  // Gemini and DeepSeek, whose answers carry reasoning text.
  it('are warned about on a plain answer only when the provider returned no reasoning text', () => {
    expect(summaryWarnings(asked, summarized)).toStrictEqual([]);
    expect(summaryWarnings(asked, { output: [{ type: 'message' }] })).toStrictEqual([
      'reasoning.summary: the provider returned no reasoning text, so there is no reasoning summary',
    ]);
    // Signed thinking without any text (redacted) is no summary.
    expect(summaryWarnings(asked, { output: [reasoningItem('rs_1', BLOCKS.slice(1))] })).toHaveLength(1);
    expect(summaryWarnings({ model: 'm', input: 'hi' }, { output: [] })).toStrictEqual([]);
  });
});
