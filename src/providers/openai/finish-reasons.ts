import { isRecord, type JsonObject } from '../../json/json.js';

/**
 * The finish reasons OpenAI-compatible providers send that are not OpenAI's own (`stop`, `length`,
 * `tool_calls`, `content_filter`, `function_call`, the only values the chat completion schemas allow), as the
 * OpenAI value that means the same. Unknown values pass on as they are (a value OpenAI adds later stays
 * intact).
 * - Mistral: `model_length` (the model's context is full), `error`.
 * - DeepSeek: `insufficient_system_resource` (the answer was cut off for lack of capacity).
 * - vLLM: `abort` (the engine dropped the request).
 * - Servers that pass on a model's own stop reason: `eos`, `eos_token`, `end_turn`, `stop_sequence`,
 *   `max_tokens`, `tool_use`.
 */
const SAME_AS: ReadonlyMap<string, string> = new Map([
  ['model_length', 'length'],
  ['max_tokens', 'length'],
  ['eos', 'stop'],
  ['eos_token', 'stop'],
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['tool_use', 'tool_calls'],
]);

/**
 * Finish reasons that say the provider failed to produce the answer: the attempt failed (another provider
 * may serve the request while nothing reached the client), never an answer that ended well.
 */
const FAILED: ReadonlySet<string> = new Set(['error', 'abort', 'insufficient_system_resource']);

/** A choice's finish reason as the gateway passes it on: the same, OpenAI's word for it, or `failed`. */
type FinishReading = { kind: 'same' } | { kind: 'renamed'; to: string } | { kind: 'failed'; reason: string };

const SAME: FinishReading = { kind: 'same' };

/** How the gateway reads a choice's `finish_reason` (null, absent and OpenAI's own values stay the same). */
function readFinishReason(value: unknown): FinishReading {
  if (typeof value !== 'string') return SAME;
  if (FAILED.has(value)) return { kind: 'failed', reason: value };
  const to = SAME_AS.get(value);
  return to === undefined ? SAME : { kind: 'renamed', to };
}

/**
 * The choices with OpenAI's finish reasons, or the failure one of them reports (its `error` member, else
 * the finish reason itself). `choices` is returned as it is when nothing needs renaming.
 */
export function openAIFinishReasons(
  choices: unknown[],
): { choices: unknown[] } | { failed: { error: unknown; reason: string } } {
  let renamed: unknown[] | undefined;
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i];
    if (!isRecord(choice)) continue;
    const reading = readFinishReason(choice.finish_reason);
    if (reading.kind === 'same') continue;
    if (reading.kind === 'failed') return { failed: { error: choice.error, reason: reading.reason } };
    renamed ??= [...choices];
    renamed[i] = { ...choice, finish_reason: reading.to } satisfies JsonObject;
  }
  return { choices: renamed ?? choices };
}

/** What a failed finish says when the provider gave no error with it (only our own words: no vendor text). */
export function failedFinishError(reason: string): { message: string; type: string } {
  return { message: `the provider ended the answer with finish_reason "${reason}"`, type: reason };
}
