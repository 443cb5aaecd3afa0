import { describe, expect, it } from 'vitest';
import {
  chatAnswer,
  chatStreamParts,
  type ProviderKind,
  RECORDINGS,
  streamOf,
} from '../../../test/conformance/provider-shapes.js';
import { schemaErrors, streamEventErrors } from '../../../test/conformance/published-schemas.js';
import { emptyUsage } from '../../accounting/usage.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { isRecord, type JsonObject, recordMember } from '../../json/json.js';
import { chatStreamToResponsesEvents } from './chat-stream-to-responses-events.js';
import { chatResultToResponse } from './chat-to-responses-result.js';
import { imageOutputItem, responseWithImage } from './image-answer.js';
import { responsesFailureEvents } from './responses-failure.js';
import { finalizeResponse, responsesEventWriter } from './responses-response.js';

/**
 * Conformance of every Responses body and event the codecs make, on each provider kind's recorded answers,
 * against the published schemas (test/schemas): OpenAI's `Response` / `ResponseStreamEvent` and the Open
 * Responses 2026-04-24 `ResponseResource` / streaming events.
 */

const META = {
  genId: 'gen_00000000-0000-4000-8000-000000000000',
  model: 'acme/chat-large',
  usage: { ...emptyUsage(), inputTokens: 12, outputTokens: 7 },
  costNano: 42,
  planningUsage: undefined,
  planningCostNano: 0,
};

const REQUEST: JsonObject = {
  model: 'acme/chat-large',
  input: 'Weather in Paris?',
  instructions: 'Be brief.',
  temperature: null,
  tools: [
    { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } },
    { type: 'web_search' },
  ],
  text: { format: { type: 'json_schema', name: 'report', schema: { type: 'object' } } },
};

function responseErrors(body: unknown): string[] {
  return [
    ...schemaErrors('openai', 'Response', body),
    ...schemaErrors('open-responses', 'ResponseResource', body),
  ];
}

/** Parses the writer's SSE frames (one write may hold several), checking that `event:` names the `type`. */
function frames(text: string[]): JsonObject[] {
  const each = text.flatMap((chunk) => chunk.split(/(?<=\n\n)/));
  return each.map((frame) => {
    const match = /^event: (.+)\ndata: (.+)\n\n$/s.exec(frame);
    const event: unknown = JSON.parse(match?.[2] ?? 'null');
    if (!isRecord(event)) throw new Error(`not an event frame: ${frame}`);
    expect(match?.[1]).toBe(event.type);
    return event;
  });
}

function eventErrors(events: JsonObject[]): string[] {
  return events.flatMap((event) => [
    ...streamEventErrors('openai', event),
    ...streamEventErrors('open-responses', event),
  ]);
}

const KINDS: ProviderKind[] = ['openai', 'anthropic', 'gemini'];
const SHAPES = ['text', 'tools'] as const;

describe.each(KINDS)('Responses over chat, %s-backed', (kind) => {
  it.each(SHAPES)('answers a schema-exact Response (%s)', async (shape) => {
    const chat = await chatAnswer(kind, RECORDINGS[kind][shape].plain);
    const body = finalizeResponse(chatResultToResponse(chat.body, REQUEST, chat.usage), META);
    expect(responseErrors(body)).toStrictEqual([]);
    expect(body.output_text).toBeTypeOf('string');
  });

  it.each(SHAPES)('streams schema-exact events in sequence (%s)', async (shape) => {
    const parts = await chatStreamParts(kind, RECORDINGS[kind][shape].stream);
    const write = responsesEventWriter(META.genId, () => META.model);
    const text: string[] = [];
    for await (const part of streamOf(parts).pipeThrough(chatStreamToResponsesEvents(REQUEST))) {
      text.push(write(part.event, part.event.type === 'response.completed' ? META : undefined));
    }
    const events = frames(text);
    expect(events.map((event) => event.sequence_number)).toStrictEqual(events.map((_, index) => index));
    expect(events.at(-1)?.type).toMatch(/^response\.(completed|incomplete)$/);
    expect(eventErrors(events)).toStrictEqual([]);
  });
});

// The recorded Anthropic thinking answer and the Gemini answers with thought parts carry reasoning text.
describe.each(KINDS)('Responses over chat with a reasoning summary asked for, %s-backed', (kind) => {
  const ASKED: JsonObject = { ...REQUEST, reasoning: { effort: 'low', summary: 'auto' } };
  const summarizes = (shape: (typeof SHAPES)[number], form: 'plain' | 'stream') =>
    (kind === 'anthropic' && shape === 'text') ||
    (kind === 'gemini' && (form === 'stream' ? shape === 'text' : shape === 'tools'));
  const summaryOf = (output: unknown) =>
    (Array.isArray(output) ? output : []).find((item) => isRecord(item) && item.type === 'reasoning')
      ?.summary;

  it.each(SHAPES)('answers a schema-exact Response (%s)', async (shape) => {
    const chat = await chatAnswer(kind, RECORDINGS[kind][shape].plain);
    const body = finalizeResponse(chatResultToResponse(chat.body, ASKED, chat.usage), META);
    expect(responseErrors(body)).toStrictEqual([]);
    if (summarizes(shape, 'plain')) {
      expect(summaryOf(body.output)).toMatchObject([{ type: 'summary_text', text: expect.any(String) }]);
    }
  });

  it.each(SHAPES)('streams schema-exact events in sequence (%s)', async (shape) => {
    const parts = await chatStreamParts(kind, RECORDINGS[kind][shape].stream);
    const write = responsesEventWriter(META.genId, () => META.model);
    const text: string[] = [];
    for await (const part of streamOf(parts).pipeThrough(chatStreamToResponsesEvents(ASKED))) {
      text.push(write(part.event, part.event.type === 'response.completed' ? META : undefined));
    }
    const events = frames(text);
    expect(events.map((event) => event.sequence_number)).toStrictEqual(events.map((_, index) => index));
    expect(eventErrors(events)).toStrictEqual([]);
    if (summarizes(shape, 'stream')) {
      const types = events.map((event) => event.type);
      expect(types).toContain('response.reasoning_summary_text.delta');
      expect(summaryOf(recordMember(events.at(-1), 'response')?.output)).toHaveLength(1);
    }
  });
});

describe('native Responses pass-through', () => {
  it('repairs an upstream body that leaves required keys out', () => {
    const upstream = {
      id: 'resp_1',
      object: 'response',
      created_at: 1763456792,
      status: 'completed',
      model: 'gpt-4.1',
      output: [
        { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
      ],
      temperature: null,
      top_p: null,
      tools: [{ type: 'function', name: 'f', parameters: null }],
    };
    const before = responseErrors(upstream);
    const body = finalizeResponse(upstream, META);
    expect(before.length).toBeGreaterThan(0);
    expect(responseErrors(body)).toStrictEqual([]);
    expect(body).toMatchObject({ id: META.genId, model: META.model, temperature: 1, output_text: 'Hi' });
  });

  it('repairs the events of an incomplete upstream stream', () => {
    const write = responsesEventWriter(META.genId, () => META.model);
    const created = { type: 'response.created', sequence_number: 7, response: { status: 'in_progress' } };
    const done = {
      type: 'response.output_item.done',
      output_index: 0,
      item: { type: 'message', id: 'm', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] },
    };
    const completed = { type: 'response.completed', response: { status: 'completed', output: [done.item] } };
    const events = frames([write(created), write(done), write(completed, META)]);
    expect(events.map((event) => event.sequence_number)).toStrictEqual([0, 1, 2, 3]);
    // The item the upstream never announced is announced (in progress, emptied) before it is done.
    expect(events.map((event) => event.type)).toStrictEqual([
      'response.created',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(eventErrors(events)).toStrictEqual([]);
  });
});

describe('responsesFailureEvents', () => {
  it('ends a stream with an error event and a complete response.failed', () => {
    const write = responsesEventWriter(META.genId, () => META.model);
    const created = { type: 'response.created', response: { status: 'in_progress', output: [] } };
    const error = new GatewayError('upstream went away', { status: 502, code: null, type: 'upstream_error' });
    const text = [
      write(created),
      ...responsesFailureEvents(error, write.snapshot()).map((event) => write(event)),
    ];
    const events = frames(text);
    expect(events.map((event) => event.type)).toStrictEqual(['response.created', 'error', 'response.failed']);
    expect(eventErrors(events)).toStrictEqual([]);
    expect(events[2]?.response).toMatchObject({
      id: META.genId,
      status: 'failed',
      error: { code: 'server_error', message: 'upstream went away' },
    });
  });

  it('tells a rate limit apart in the failed response', () => {
    const error = new GatewayError('slow down', {
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      type: 'rate_limit_error',
    });
    const [, failed] = responsesFailureEvents(error);
    expect(failed?.response).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });
});

describe('image answers', () => {
  it('answer a Response that OpenAI’s schema accepts', () => {
    const body = responseWithImage(META.genId, META.model, imageOutputItem('aGk=', 'a cat'), META);
    // image_generation_call is an OpenAI item: Open Responses has no such item type.
    expect(schemaErrors('openai', 'Response', body)).toStrictEqual([]);
  });
});
