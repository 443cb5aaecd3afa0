import { describe, expect, it } from 'vitest';
import {
  chatAnswer,
  chatStreamParts,
  type ProviderKind,
  RECORDINGS,
  streamOf,
} from '../../../test/conformance/provider-shapes.js';
import { schemaErrors, streamEventErrors } from '../../../test/conformance/published-schemas.js';
import type { JsonObject } from '../../json/json.js';
import { chatStreamToMessagesEvents } from './chat-stream-to-messages-events.js';
import { chatToMessages } from './chat-to-messages.js';

/**
 * Conformance of the Messages ingress's answers and events, on each provider kind's recorded answers,
 * against Anthropic's published schema (test/schemas): `Message` and `MessageStreamEvent`. Tool-use ids are
 * in the `toolu_` form whatever the upstream.
 */

const META = { id: 'gen_00000000-0000-4000-8000-000000000000', model: 'acme/chat-large', stopSequences: [] };
const USAGE_META = { costNano: 42, planningUsage: undefined, planningCostNano: 0 };
const KINDS: ProviderKind[] = ['openai', 'anthropic', 'gemini'];
const SHAPES = ['text', 'tools'] as const;

function toolUseIds(blocks: unknown[]): unknown[] {
  return blocks.flatMap((block) =>
    typeof block === 'object' &&
    block !== null &&
    'type' in block &&
    block.type === 'tool_use' &&
    'id' in block
      ? [block.id]
      : [],
  );
}

describe.each(KINDS)('Messages over chat, %s-backed', (kind) => {
  it.each(SHAPES)('answers a schema-exact Message (%s)', async (shape) => {
    const chat = await chatAnswer(kind, RECORDINGS[kind][shape].plain);
    const { body } = chatToMessages(chat.body, { ...META, usage: { ...USAGE_META, usage: chat.usage } });
    expect(schemaErrors('anthropic', 'Message', body)).toStrictEqual([]);
    const content = Array.isArray(body.content) ? body.content : [];
    for (const id of toolUseIds(content)) expect(id).toMatch(/^toolu_[A-Za-z0-9_-]+$/);
    if (shape === 'tools') expect(toolUseIds(content).length).toBeGreaterThan(0);
  });

  it.each(SHAPES)('streams schema-exact events (%s)', async (shape) => {
    const parts = await chatStreamParts(kind, RECORDINGS[kind][shape].stream);
    const events: JsonObject[] = [];
    for await (const part of streamOf(parts).pipeThrough(chatStreamToMessagesEvents(META))) {
      events.push(part.event);
    }
    expect(events[0]?.type).toBe('message_start');
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(events.flatMap((event) => streamEventErrors('anthropic', event))).toStrictEqual([]);
    const blocks = events.flatMap((event) =>
      event.type === 'content_block_start' ? [event.content_block] : [],
    );
    for (const id of toolUseIds(blocks)) expect(id).toMatch(/^toolu_[A-Za-z0-9_-]+$/);
  });
});
