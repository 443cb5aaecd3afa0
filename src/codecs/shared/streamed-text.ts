import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';

/**
 * The generated text a stream event carries (content, reasoning, tool call arguments): what a provider bills
 * as output. Counted with the tokenizer when a stream is cut short before the provider reported its usage.
 */

/** Of a `chat.completion.chunk`. */
export function chatChunkText(chunk: JsonObject): string {
  let text = '';
  for (const choice of arrayMember(chunk, 'choices') ?? []) {
    const delta = recordMember(choice, 'delta');
    if (!delta) continue;
    text += stringMember(delta, 'content') ?? '';
    text += stringMember(delta, 'reasoning_content') ?? stringMember(delta, 'reasoning') ?? '';
    for (const call of arrayMember(delta, 'tool_calls') ?? []) {
      text += stringMember(recordMember(call, 'function'), 'arguments') ?? '';
    }
  }
  return text;
}

/** Of a Responses event: every `*.delta` event's text (output text, refusal, reasoning, function arguments). */
export function responsesEventText(event: JsonObject): string {
  const type = stringMember(event, 'type');
  return type?.endsWith('.delta') ? (stringMember(event, 'delta') ?? '') : '';
}

/** Of a Messages event: `content_block_delta` text, thinking and tool input JSON. */
export function messagesEventText(event: JsonObject): string {
  if (event.type !== 'content_block_delta' || !isRecord(event.delta)) return '';
  const delta = event.delta;
  return (
    stringMember(delta, 'text') ??
    stringMember(delta, 'thinking') ??
    stringMember(delta, 'partial_json') ??
    ''
  );
}
