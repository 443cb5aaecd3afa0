import { isRecord, type JsonObject, stringMember } from '../../json/json.js';

/**
 * Claude's thinking on the canonical chat path. The Anthropic adapter puts an answer's `thinking` blocks
 * (each with the `signature` that proves it) and `redacted_thinking` blocks on the chat message as
 * `thinking_blocks` (streamed: `delta.thinking_blocks`, one whole block per entry), and sends the
 * `thinking_blocks` of an assistant message back ahead of its text and tool calls: with thinking on,
 * Anthropic rejects a tool-use turn that comes back without its signed thinking.
 * Reference: https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 */

/**
 * The blocks of a list that can be sent back to Anthropic, reduced to their members: `thinking` blocks
 * with a non-empty signature, and `redacted_thinking` blocks. A thinking block without a signature (the
 * gateway's rendering of another provider's reasoning text) proves nothing and is left out.
 */
export function replayableThinkingBlocks(value: unknown): JsonObject[] {
  const blocks: JsonObject[] = [];
  for (const block of Array.isArray(value) ? value : []) {
    if (!isRecord(block)) continue;
    const thinking = stringMember(block, 'thinking');
    const signature = stringMember(block, 'signature');
    const data = stringMember(block, 'data');
    if (block.type === 'thinking' && thinking !== undefined && signature) {
      blocks.push({ type: 'thinking', thinking, signature });
    } else if (block.type === 'redacted_thinking' && data !== undefined) {
      blocks.push({ type: 'redacted_thinking', data });
    }
  }
  return blocks;
}
