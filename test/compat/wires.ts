import { expect } from 'vitest';
import { toUpstreamToolCallId } from '../../src/codecs/messages/tool-use-id.js';
import { FAKE_THOUGHT_SIGNATURE } from '../../src/test-support/fake-gemini-upstream.js';
import { CLAUDE_THINKING, type Sent, type WireId } from './providers.js';
import {
  EFFORT,
  JSON_SCHEMA,
  MAX_TOKENS,
  PNG_DATA_URI,
  STOP,
  SYSTEM_TEXT,
  TEMPERATURE,
  THINKING_BUDGET,
  TINY_PNG_BASE64,
  TOOL_ARGUMENTS,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_PARAMETERS,
  TOOL_RESULT,
  TOP_P,
  USER_TEXT,
} from './scenario.js';

export interface WireContext {
  upstreamModel: string;
  stream: boolean;
  /** The id of the tool call the round trip answered. */
  callId: string;
  /** The cell documents a warning (a degradation the upstream request shows). */
  warns: boolean;
}

type Check = (body: Record<string, unknown>, context: WireContext) => void;

interface Wire {
  /** Always: the upstream's path, its model name and the streaming choice. */
  base(sent: Sent, context: WireContext): void;
  /** Per feature: the feature's parameter in the upstream's own format. */
  features: Partial<Record<string, Check>>;
}

const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>(
    (node, key) => (typeof node === 'object' && node !== null ? Reflect.get(node, key) : undefined),
    value,
  );

const parsedArguments = (call: unknown) => JSON.parse(String(at(call, 'function', 'arguments')));

const openaiChat: Wire = {
  base: ({ path, body }, { upstreamModel, stream }) => {
    expect(path).toBe('/v1/chat/completions');
    expect(body).toMatchObject({ model: upstreamModel, stream });
    if (stream) expect(body.stream_options).toMatchObject({ include_usage: true });
  },
  features: {
    text: (body) => expect(body.messages).toEqual([{ role: 'user', content: USER_TEXT }]),
    system: (body) => expect(at(body, 'messages', 0)).toEqual({ role: 'system', content: SYSTEM_TEXT }),
    image: (body) =>
      expect(at(body, 'messages', 0, 'content')).toMatchObject([
        { type: 'text', text: USER_TEXT },
        { type: 'image_url', image_url: { url: PNG_DATA_URI } },
      ]),
    tools: (body) =>
      expect(body.tools).toMatchObject([
        {
          type: 'function',
          function: { name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: TOOL_PARAMETERS },
        },
      ]),
    'tool-result': (body, { callId: clientId }) => {
      // The upstream gets back the id it issued: the Messages ingress shows clients a `toolu_` form of it.
      const callId = toUpstreamToolCallId(clientId);
      const messages = body.messages as unknown[];
      expect(messages.map((message) => at(message, 'role'))).toEqual(['user', 'assistant', 'tool']);
      const call = at(messages[1], 'tool_calls', 0);
      expect(call).toMatchObject({ id: callId, type: 'function', function: { name: TOOL_NAME } });
      expect(parsedArguments(call)).toEqual(TOOL_ARGUMENTS);
      expect(messages[2]).toEqual({ role: 'tool', tool_call_id: callId, content: TOOL_RESULT });
    },
    'tool-choice': (body) =>
      expect(body.tool_choice).toEqual({ type: 'function', function: { name: TOOL_NAME } }),
    structured: (body) =>
      expect(body.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { schema: JSON_SCHEMA },
      }),
    'max-tokens': (body) => expect(body.max_completion_tokens ?? body.max_tokens).toBe(MAX_TOKENS),
    stop: (body) => expect(body.stop).toEqual(STOP),
    sampling: (body) => expect(body).toMatchObject({ temperature: TEMPERATURE, top_p: TOP_P }),
    reasoning: (body) => expect(body.reasoning_effort).toBe(EFFORT),
  },
};

/** Native Responses: the request reaches OpenAI as the client wrote it, with the upstream model name. */
const openaiResponses: Wire = {
  base: ({ path, body }, { upstreamModel, stream }) => {
    expect(path).toBe('/v1/responses');
    expect(body).toMatchObject({ model: upstreamModel, stream });
  },
  features: {
    text: (body) => expect(body.input).toBe(USER_TEXT),
    system: (body) => expect(body.instructions).toBe(SYSTEM_TEXT),
    image: (body) =>
      expect(at(body, 'input', 0, 'content')).toMatchObject([
        { type: 'input_text', text: USER_TEXT },
        { type: 'input_image', image_url: PNG_DATA_URI },
      ]),
    tools: (body) =>
      expect(body.tools).toMatchObject([{ type: 'function', name: TOOL_NAME, parameters: TOOL_PARAMETERS }]),
    'tool-result': (body, { callId }) => {
      const input = body.input as unknown[];
      expect(input).toContainEqual(expect.objectContaining({ type: 'function_call', call_id: callId }));
      expect(input.at(-1)).toEqual({ type: 'function_call_output', call_id: callId, output: TOOL_RESULT });
    },
    'tool-choice': (body) => expect(body.tool_choice).toEqual({ type: 'function', name: TOOL_NAME }),
    structured: (body) =>
      expect(at(body, 'text', 'format')).toMatchObject({ type: 'json_schema', schema: JSON_SCHEMA }),
    'max-tokens': (body) => expect(body.max_output_tokens).toBe(MAX_TOKENS),
    sampling: (body) => expect(body).toMatchObject({ temperature: TEMPERATURE, top_p: TOP_P }),
    reasoning: (body) => expect(body.reasoning).toEqual({ effort: EFFORT }),
  },
};

const anthropic: Wire = {
  base: ({ path, body }, { upstreamModel, stream }) => {
    expect(path).toBe('/v1/messages');
    expect(body.model).toBe(upstreamModel);
    expect(body.stream).toBe(stream ? true : undefined);
    expect(body.max_tokens).toEqual(expect.any(Number));
  },
  features: {
    text: (body) =>
      expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: USER_TEXT }] }]),
    system: (body) => expect(body.system).toEqual([{ type: 'text', text: SYSTEM_TEXT }]),
    image: (body) =>
      expect(at(body, 'messages', 0, 'content')).toEqual([
        { type: 'text', text: USER_TEXT },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 } },
      ]),
    tools: (body) =>
      expect(body.tools).toEqual([
        { name: TOOL_NAME, description: TOOL_DESCRIPTION, input_schema: TOOL_PARAMETERS },
      ]),
    'tool-result': (body, { callId }) => {
      const messages = body.messages as unknown[];
      expect(messages.map((message) => at(message, 'role'))).toEqual(['user', 'assistant', 'user']);
      expect(at(messages[1], 'content')).toContainEqual({
        type: 'tool_use',
        id: callId,
        name: TOOL_NAME,
        input: TOOL_ARGUMENTS,
      });
      expect(at(messages[2], 'content')).toEqual([
        { type: 'tool_result', tool_use_id: callId, content: TOOL_RESULT },
      ]);
    },
    'tool-choice': (body) => expect(body.tool_choice).toEqual({ type: 'tool', name: TOOL_NAME }),
    structured: (body) =>
      expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: JSON_SCHEMA } }),
    'max-tokens': (body) => expect(body.max_tokens).toBe(MAX_TOKENS),
    stop: (body) => expect(body.stop_sequences).toEqual(STOP),
    sampling: (body) => expect(body).toMatchObject({ temperature: TEMPERATURE, top_p: TOP_P }),
    reasoning: (body) => expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: THINKING_BUDGET }),
    // With thinking on, the tool-use turn must go back with its signed thinking block first.
    'reasoning-tools': (body) =>
      expect(at(body, 'messages', 1, 'content', 0)).toEqual({ type: 'thinking', ...CLAUDE_THINKING }),
  },
};

const gemini: Wire = {
  base: ({ path }, { upstreamModel, stream }) => {
    const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    expect(path).toBe(`/v1beta/models/${upstreamModel}:${method}`);
  },
  features: {
    text: (body) => expect(body.contents).toEqual([{ role: 'user', parts: [{ text: USER_TEXT }] }]),
    system: (body) => expect(body.systemInstruction).toEqual({ parts: [{ text: SYSTEM_TEXT }] }),
    image: (body) =>
      expect(at(body, 'contents', 0, 'parts')).toEqual([
        { text: USER_TEXT },
        { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } },
      ]),
    tools: (body) =>
      expect(body.tools).toEqual([
        {
          functionDeclarations: [
            { name: TOOL_NAME, description: TOOL_DESCRIPTION, parametersJsonSchema: TOOL_PARAMETERS },
          ],
        },
      ]),
    // Without the signature Gemini gave, the documented placeholder goes back (and the cell warns).
    'tool-result': (body, { warns }) =>
      expect(body.contents).toEqual([
        { role: 'user', parts: [{ text: USER_TEXT }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: TOOL_NAME, args: TOOL_ARGUMENTS },
              thoughtSignature: warns ? 'skip_thought_signature_validator' : FAKE_THOUGHT_SIGNATURE,
            },
          ],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: TOOL_NAME, response: JSON.parse(TOOL_RESULT) } }],
        },
      ]),
    'tool-choice': (body) =>
      expect(body.toolConfig).toEqual({
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [TOOL_NAME] },
      }),
    structured: (body) =>
      expect(body.generationConfig).toMatchObject({
        responseMimeType: 'application/json',
        responseJsonSchema: JSON_SCHEMA,
      }),
    'max-tokens': (body) => expect(at(body, 'generationConfig', 'maxOutputTokens')).toBe(MAX_TOKENS),
    stop: (body) => expect(at(body, 'generationConfig', 'stopSequences')).toEqual(STOP),
    sampling: (body) =>
      expect(body.generationConfig).toMatchObject({ temperature: TEMPERATURE, topP: TOP_P }),
    reasoning: (body) =>
      expect(at(body, 'generationConfig', 'thinkingConfig')).toEqual({
        thinkingLevel: EFFORT,
        includeThoughts: true,
      }),
  },
};

export const WIRES: Record<WireId, Wire> = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  gemini,
};

/** Features checked upstream like another: a streamed or usage variant sends what the plain one does. */
const SAME_AS: Record<string, string[]> = {
  'text-stream': ['text'],
  'tools-stream': ['tools'],
  'reasoning-stream': ['reasoning'],
  'reasoning-tools': ['tool-result', 'reasoning'],
  usage: ['text'],
  'usage-stream': ['text'],
};

/** Checks the last upstream request: the base, then the feature's parameters in the upstream's format. */
export function expectUpstream(wire: WireId, feature: string, sent: Sent, context: WireContext): void {
  const spec = WIRES[wire];
  spec.base(sent, context);
  const own = spec.features[feature];
  const checks = [...(SAME_AS[feature] ?? []).map((name) => spec.features[name]), ...(own ? [own] : [])];
  if (checks.length === 0 || checks.includes(undefined)) {
    throw new Error(`no upstream check for ${feature} on ${wire}`);
  }
  for (const check of checks) check?.(sent.body, context);
}
