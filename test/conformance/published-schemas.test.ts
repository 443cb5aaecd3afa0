import { describe, expect, it } from 'vitest';
import { adaptOpenApiSchema } from './adapt-openapi-schema.js';
import { declaredEventTypes, schemaErrors, streamEventErrors } from './published-schemas.js';

/** The validator itself: it must reject what the schemas reject, or the conformance tests prove nothing. */
describe('published schema validator', () => {
  const usage = {
    input_tokens: 1,
    output_tokens: 1,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: null,
  };
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [{ type: 'text', text: 'Hi', citations: null }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage,
  };

  it('accepts a complete Anthropic Message and names what a bare one lacks', () => {
    expect(schemaErrors('anthropic', 'Message', message)).toStrictEqual([]);
    const { stop_details: _, ...bare } = message;
    expect(schemaErrors('anthropic', 'Message', bare).join('\n')).toContain("'stop_details'");
    const uncited = { ...message, content: [{ type: 'text', text: 'Hi' }] };
    expect(schemaErrors('anthropic', 'Message', uncited)).not.toStrictEqual([]);
  });

  it('validates an event by its type, and rejects a type the description does not declare', () => {
    const delta = { type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0 };
    const complete = { ...delta, delta: 'Hi', logprobs: [], sequence_number: 3 };
    expect(streamEventErrors('openai', complete)).toStrictEqual([]);
    expect(streamEventErrors('open-responses', complete)).toStrictEqual([]);
    expect(streamEventErrors('openai', { ...complete, sequence_number: undefined })).not.toStrictEqual([]);
    expect(streamEventErrors('openai', { type: 'response.made_up' })).toStrictEqual([
      'openai: no stream event of type "response.made_up"',
    ]);
  });

  it('reads OpenAPI 3.0 `nullable` as allowing null, and knows its event unions', () => {
    const adapted = adaptOpenApiSchema({ properties: { a: { type: 'string', nullable: true } } });
    expect(adapted).toStrictEqual({ properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } });
    expect(declaredEventTypes('anthropic')).toContain('message_delta');
    expect(declaredEventTypes('open-responses')).toContain('response.function_call_arguments.done');
    expect(() => schemaErrors('openai', 'NoSuchSchema', {})).toThrow('no component schema NoSuchSchema');
  });
});
