import { describe, expect, it } from 'vitest';
import { reasoningItem, thinkingBlocksOf } from './reasoning-item.js';

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
