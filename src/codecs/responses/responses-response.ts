import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { responsesUsageBody, type UsageMeta } from '../shared/usage-body.js';
import { normalizeContentPart, normalizeOutputItem, normalizeResponse } from './response-defaults.js';
import { responsesLifecycle } from './responses-lifecycle.js';

export interface ResponsesMeta extends UsageMeta {
  genId: string;
  model: string;
}

/** Concatenated text of the output messages (`output_text` of the spec). */
export function outputText(output: unknown[] | undefined): string {
  let text = '';
  for (const item of output ?? []) {
    if (stringMember(item, 'type') !== 'message') continue;
    for (const part of arrayMember(item, 'content') ?? []) {
      if (stringMember(part, 'type') === 'output_text') text += stringMember(part, 'text') ?? '';
    }
  }
  return text;
}

/**
 * A Responses result as the gateway answers it: our id and slug, usage with cost, `output_text`, and every
 * key the schemas require, so that an incomplete native upstream body is repaired too (`normalizeResponse`).
 */
export function finalizeResponse(body: JsonObject, meta: ResponsesMeta): JsonObject {
  const normalized = normalizeResponse(withMembers(body, { id: meta.genId, model: meta.model }));
  return withMembers(normalized, {
    output_text: outputText(arrayMember(normalized, 'output')),
    usage: responsesUsageBody(meta),
  });
}

/** Events whose `response` member is a whole Response object. */
const RESPONSE_EVENTS = new Set([
  'response.created',
  'response.in_progress',
  'response.completed',
  'response.failed',
  'response.incomplete',
  'response.queued',
]);

/** Events whose `logprobs` OpenAI's schema requires. */
const LOGPROB_EVENTS = new Set(['response.output_text.delta', 'response.output_text.done']);

/** True for the event that ends a Responses stream. */
export const isTerminalEvent = (type: string): boolean =>
  type === 'response.completed' || type === 'response.failed' || type === 'response.incomplete';

/** The writer of one Responses stream; `snapshot()` is the response as the client knows it so far. */
export interface ResponsesEventWriter {
  (event: JsonObject, meta?: UsageMeta): string;
  snapshot(): JsonObject;
}

/**
 * Rewrites a streamed Responses event, whoever wrote it (our translation, or a native upstream): our
 * response id and model slug, our own gap-free `sequence_number`, every key the schemas require on the
 * response, items and parts it carries, and, on the terminal event, usage with cost. Frames it as SSE with
 * `event:` equal to `type`. It remembers the latest response and the items done, for `responsesFailureEvents`.
 */
export function responsesEventWriter(
  genId: string,
  model: () => string,
  previousResponseId: string | null = null,
): ResponsesEventWriter {
  let sequence = 0;
  let latest: JsonObject | undefined;
  const done: JsonObject[] = [];
  /** Function call names by item id, from `output_item.added`. */
  const callNames = new Map<string, string>();
  const repair = responsesLifecycle();
  const writeOne = (event: JsonObject, meta?: UsageMeta): string => {
    event.sequence_number = sequence++;
    const type = stringMember(event, 'type') ?? '';
    const response = recordMember(event, 'response');
    if (RESPONSE_EVENTS.has(type) && response) {
      // A terminal response without `output` (a lax upstream) ends with the items it streamed.
      const output = isTerminalEvent(type) && !Array.isArray(response.output) ? [...done] : response.output;
      const fixed = normalizeResponse(withMembers(response, { id: genId, model: model(), output }));
      fixed.previous_response_id = previousResponseId;
      if (meta) fixed.usage = responsesUsageBody(meta);
      if (isTerminalEvent(type)) fixed.output_text = outputText(arrayMember(fixed, 'output'));
      event.response = fixed;
      latest = fixed;
    }
    if (isRecord(event.item)) event.item = normalizeOutputItem(event.item);
    if (isRecord(event.part)) event.part = normalizeContentPart(event.part);
    const item = recordMember(event, 'item');
    if (type === 'response.output_item.added' && item && typeof item.name === 'string') {
      callNames.set(String(item.id), item.name);
    }
    // OpenAI's schema requires the call's name here; some upstreams leave it out.
    if (type === 'response.function_call_arguments.done' && typeof event.name !== 'string') {
      event.name = callNames.get(String(event.item_id)) ?? '';
    }
    // OpenAI's schema requires `logprobs` on a text delta and its end; some upstreams leave it out.
    if (LOGPROB_EVENTS.has(type) && !Array.isArray(event.logprobs)) event.logprobs = [];
    if (type === 'response.output_item.done' && item) done.push(item);
    if (typeof event.response_id === 'string') event.response_id = genId;
    return `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
  };
  const write = (event: JsonObject, meta?: UsageMeta): string => {
    const events = repair(event);
    if (events.length === 1) return writeOne(event, meta);
    return events.map((each) => writeOne(each, each === event ? meta : undefined)).join('');
  };
  const snapshot = (): JsonObject =>
    normalizeResponse(withMembers(latest ?? {}, { id: genId, model: model(), output: [...done] }));
  return Object.assign(write, { snapshot });
}
