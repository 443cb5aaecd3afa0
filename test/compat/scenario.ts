import { TINY_PNG_BASE64 } from '../../src/test-support/fake-openai-upstream.js';

/** The ingresses of the matrix: how the client speaks to the gateway. */
export const INGRESSES = ['chat', 'responses', 'messages', 'gemini'] as const;
export type IngressId = (typeof INGRESSES)[number];

/** The providers of the matrix, each on its own fake upstream. */
export const PROVIDERS = ['openai', 'openai-compat', 'anthropic', 'gemini'] as const;
export type ProviderId = (typeof PROVIDERS)[number];

export const USER_TEXT = 'What is the weather in Paris?';
export const SYSTEM_TEXT = 'Answer in one short sentence.';
export const PNG_DATA_URI = `data:image/png;base64,${TINY_PNG_BASE64}`;
export { TINY_PNG_BASE64 };

export const TOOL_NAME = 'get_weather';
export const TOOL_DESCRIPTION = 'Current weather in a city';
export const TOOL_PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
/** The arguments every fake calls the tool with. */
export const TOOL_ARGUMENTS = { city: 'Paris' };
/** What the tool answers in the round trip (a JSON object, so that Gemini gets it as a Struct). */
export const TOOL_RESULT = '{"temperature_c":18}';

export const JSON_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature_c: { type: 'number' } },
  required: ['city', 'temperature_c'],
  additionalProperties: false,
};
/** The answer the fakes give in the structured-output cells. */
export const JSON_REPLY = { city: 'Paris', temperature_c: 18 };

export const MAX_TOKENS = 123;
export const STOP = ['END'];
export const TEMPERATURE = 0.3;
export const TOP_P = 0.9;
/** `reasoning_effort` / `reasoning.effort`; the Messages ingress sends the matching thinking budget. */
export const EFFORT = 'low';
export const THINKING_BUDGET = 2048;

/** A request, described once; each ingress driver writes it in its own wire format. */
export interface Scenario {
  system?: boolean;
  image?: boolean;
  tools?: boolean;
  forceTool?: boolean;
  jsonSchema?: boolean;
  maxTokens?: boolean;
  stop?: boolean;
  sampling?: boolean;
  reasoning?: boolean;
  stream?: boolean;
}

/** A tool call as the client got it. */
export interface ClientToolCall {
  id: string;
  name: string;
  /** The arguments as one JSON string (streamed: the fragments joined in order). */
  arguments: string;
}

/** What the client got, whatever the ingress. */
export interface Outcome {
  text: string;
  /** Reasoning text the ingress carries (chat `reasoning_content`, Messages `thinking` blocks). */
  reasoning: string;
  toolCalls: ClientToolCall[];
  /** `tool`: ended for tool calls; `stop`: a natural end or a stop sequence; `length`: cut at max tokens. */
  finish: 'tool' | 'stop' | 'length' | 'other';
  /** Messages only: the `stop_sequence` that ended the answer (null elsewhere). */
  stopSequence: string | null;
  /** The ingress's own usage object (with `cost`). */
  usage: Record<string, unknown>;
  /** The `x-gateway-warnings` header, or null. */
  warnings: string | null;
  /** Sends the tool result back for the first tool call (the same request plus the turn and the result). */
  sendToolResult(result: string): Promise<Outcome>;
}

/** The usage a provider's fake reports, in canonical terms (input includes cached reads and writes). */
export interface CanonicalUsage {
  input: number;
  cachedRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
  /** Exact cost in nano-USD from the config prices. */
  cost: number;
}
