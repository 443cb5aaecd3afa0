import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import Anthropic from '@anthropic-ai/sdk';
import { stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import { schemaErrors } from '../conformance/published-schemas.js';
import { parseSse } from '../conformance/sse-events.js';

// Bug: an OpenAI-compatible server's `"arguments": ""` for a tool without parameters reached chat clients as
// it came, where OpenAI always sends JSON (`{}`): the `openai` SDK's `create()` and `finalChatCompletion()`
// gave `""`, which its tool runners and most agent code `JSON.parse`. The AI SDK and the Messages ingress
// already read `""` as no arguments; they are checked here so that the `{}` the gateway now adds stays `{}`.

let env: TestGateway;
let openai: OpenAI;

beforeAll(async () => {
  env = await startTestGateway();
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());

const tools = [
  {
    type: 'function' as const,
    function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
  },
];

/** Runs `run` while the upstream calls `get_time` with no argument text (`""`, in fragments when streamed). */
async function withBlankCall(run: () => Promise<void>): Promise<void> {
  env.upstream.toolCalls = [{ id: 'call_time', name: 'get_time', arguments: '' }];
  env.upstream.toolCallsWhenOffered = true;
  try {
    await run();
  } finally {
    env.upstream.toolCalls = undefined;
    env.upstream.toolCallsWhenOffered = false;
  }
}

describe('a tool call without argument text, from an OpenAI-compatible upstream', () => {
  it('reaches the openai SDK as {}, plain and streamed, in chunks that match the published schema', () =>
    withBlankCall(async () => {
      const request = {
        model: 'acme/chat-large',
        messages: [{ role: 'user' as const, content: 'time?' }],
        tools,
      };
      const plain = await openai.chat.completions.create(request);
      expect(plain.choices[0]?.message.tool_calls).toMatchObject([
        { id: 'call_time', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ]);
      expect(schemaErrors('openai', 'CreateChatCompletionResponse', plain)).toEqual([]);

      const final = await openai.chat.completions.stream(request).finalChatCompletion();
      const streamed = final.choices[0]?.message.tool_calls?.[0];
      expect(streamed).toMatchObject({ id: 'call_time', function: { name: 'get_time', arguments: '{}' } });
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');

      const response = await fetch(`${env.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, stream: true }),
      });
      const { events, done } = parseSse(await response.text());
      expect(done).toBe(true);
      const chunks = events.map((event) => event.data);
      expect(
        chunks.flatMap((chunk) => schemaErrors('openai', 'CreateChatCompletionStreamResponse', chunk)),
      ).toEqual([]);
      // The `{}` comes after the call was opened (id and name) and before the finish reason.
      const fragments = chunks.flatMap((chunk) =>
        (chunk.choices as { delta?: { tool_calls?: { function?: { arguments?: string } }[] } }[]).flatMap(
          (choice) => choice.delta?.tool_calls?.map((call) => call.function?.arguments ?? '') ?? [],
        ),
      );
      expect(fragments.join('')).toBe('{}');
      const finishAt = chunks.findIndex((chunk) =>
        (chunk.choices as { finish_reason?: string | null }[]).some((choice) => choice.finish_reason),
      );
      const lastFragmentAt = chunks.findLastIndex((chunk) =>
        JSON.stringify(chunk).includes('"arguments":"{}"'),
      );
      expect(lastFragmentAt).toBeGreaterThan(0);
      expect(lastFragmentAt).toBeLessThan(finishAt);
    }));

  it('reaches the AI SDK as input {}, and the tool runs', () =>
    withBlankCall(async () => {
      const gateway = createOpenAICompatible({ name: 'gateway', baseURL: env.baseURL, apiKey: TEST_KEY });
      let ran = 0;
      const result = streamText({
        model: gateway('acme/chat-large'),
        prompt: 'What time is it?',
        tools: {
          get_time: tool({
            description: 'The time',
            inputSchema: z.object({}),
            execute: async () => {
              ran += 1;
              return '12:00';
            },
          }),
        },
        stopWhen: stepCountIs(2),
        maxRetries: 0,
      });
      const steps = await result.steps;
      expect(steps[0]?.toolCalls.map((call) => [call.toolName, call.input])).toEqual([['get_time', {}]]);
      expect(steps[0]?.toolResults.map((r) => r.output)).toEqual(['12:00']);
      expect(ran).toBe(1);
      expect(await result.text).toBe(env.upstream.reply);
    }));

  it('reaches an Anthropic client of the Messages endpoint as input {}', () =>
    withBlankCall(async () => {
      const anthropic = new Anthropic({
        apiKey: TEST_KEY,
        baseURL: env.baseURL.replace(/\/v1$/, ''),
        maxRetries: 0,
      });
      const request = {
        model: 'acme/chat-large',
        max_tokens: 100,
        messages: [{ role: 'user' as const, content: 'time?' }],
        tools: [{ name: 'get_time', input_schema: { type: 'object' as const, properties: {} } }],
      };
      const plain = await anthropic.messages.create(request);
      const streamed = await anthropic.messages.stream(request).finalMessage();
      for (const message of [plain, streamed]) {
        expect(message.content.filter((block) => block.type === 'tool_use')).toMatchObject([
          { type: 'tool_use', name: 'get_time', input: {} },
        ]);
        expect(message.stop_reason).toBe('tool_use');
      }
    }));
});
