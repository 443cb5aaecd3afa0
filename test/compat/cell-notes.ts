import type { IngressId, ProviderId } from './scenario.js';

/**
 * Cells that are not a plain pass:
 * - `warns`: supported with a documented degradation; the test asserts the `x-gateway-warnings` text.
 * - `bug`: a gateway bug; the test asserts the correct behaviour under `it.fails` until it is fixed.
 * - `n/a`: the ingress has no such parameter; the test is registered as skipped, with the reason.
 * Keys are `ingress|provider|feature`; `*` as the provider matches every provider.
 */
export type CellNote =
  | { kind: 'warns'; warning: RegExp; why: string }
  | { kind: 'bug'; why: string }
  | { kind: 'n/a'; why: string };

const NO_SIGNATURE = /carries no Gemini thought signature .*sent skip_thought_signature_validator/;
const signatureLost = (item: string): CellNote => ({
  kind: 'warns',
  warning: NO_SIGNATURE,
  why: `${item} carry no Gemini thought signature; Google's documented placeholder is sent back`,
});

// Gateway bugs: each test asserts the correct behaviour and is expected to fail until the bug is fixed.
const STRUCTURED_UNTRANSLATED: CellNote = {
  kind: 'bug',
  // POST /v1/messages {output_config: {format: {type: 'json_schema', schema}}} reaches a chat upstream as
  // an unknown `output_config` member (and Gemini as a top-level `output_config`), with no response_format /
  // responseJsonSchema: the schema is not applied, and the real APIs reject the unknown member.
  why: 'output_config.format is passed through untranslated instead of becoming the provider’s JSON schema',
};
const THINKING_NOT_REPLAYED = (how: string): CellNote => ({
  kind: 'bug',
  // With thinking on, Anthropic wants the tool-use turn back with its signed thinking block first; the fake
  // answers 400 invalid_request_error "Expected `thinking` or `redacted_thinking`, but found `text`" as the API.
  why: `Claude's signed thinking block is not sent back with the tool-use turn (${how}), so Anthropic answers 400`,
});

export const CELL_NOTES: Record<string, CellNote> = {
  'responses|*|stop': { kind: 'n/a', why: 'the Responses API has no stop sequences' },
  'responses|gemini|tool-result': signatureLost('function_call items'),
  'responses|gemini|reasoning-tools': signatureLost('function_call items'),
  'messages|gemini|tool-result': signatureLost('tool_use blocks'),
  'messages|gemini|reasoning-tools': signatureLost('tool_use blocks'),
  'messages|openai|structured': STRUCTURED_UNTRANSLATED,
  'messages|openai-compat|structured': STRUCTURED_UNTRANSLATED,
  'messages|gemini|structured': STRUCTURED_UNTRANSLATED,
  // Anthropic answers stop_reason "stop_sequence", stop_sequence "END"; /v1/messages answers
  // stop_reason "end_turn", stop_sequence null (the chat hop keeps only finish_reason "stop").
  'messages|anthropic|stop': {
    kind: 'bug',
    why: 'Anthropic’s stop_reason stop_sequence comes back as end_turn with stop_sequence null',
  },
  // The answer's thinking block has signature "" (thinking_blocks are not used), and the ingress drops
  // thinking blocks of earlier assistant turns.
  'messages|anthropic|reasoning-tools': THINKING_NOT_REPLAYED(
    'signature "" in the answer, dropped on the way back',
  ),
  // Translated Responses answers have no reasoning item, so nothing carries the thinking block back.
  'responses|anthropic|reasoning-tools': THINKING_NOT_REPLAYED('no reasoning item carries it'),
};

export function noteFor(ingress: IngressId, provider: ProviderId, feature: string): CellNote | undefined {
  return CELL_NOTES[`${ingress}|${provider}|${feature}`] ?? CELL_NOTES[`${ingress}|*|${feature}`];
}
