import { arrayMember, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { responsesUsageBody, type UsageMeta } from '../shared/usage-body.js';

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

/** A Responses result as the gateway answers it: our id and slug, usage with cost, `output_text`. */
export function finalizeResponse(body: JsonObject, meta: ResponsesMeta): JsonObject {
  const output = arrayMember(body, 'output') ?? [];
  return {
    ...body,
    id: meta.genId,
    object: 'response',
    created_at: typeof body.created_at === 'number' ? body.created_at : Math.floor(Date.now() / 1000),
    status: typeof body.status === 'string' ? body.status : 'completed',
    model: meta.model,
    output,
    output_text: outputText(output),
    usage: responsesUsageBody(meta),
  };
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

/** True for the event that ends a Responses stream. */
export const isTerminalEvent = (type: string): boolean =>
  type === 'response.completed' || type === 'response.failed' || type === 'response.incomplete';

/**
 * Rewrites a streamed Responses event: our response id and model slug, our own gap-free `sequence_number`,
 * and, on the terminal event, usage with cost.
 */
export function responsesEventWriter(
  genId: string,
  model: () => string,
  previousResponseId: string | null = null,
) {
  let sequence = 0;
  return (event: JsonObject, meta?: UsageMeta): string => {
    event.sequence_number = sequence++;
    const type = stringMember(event, 'type') ?? '';
    const response = recordMember(event, 'response');
    if (RESPONSE_EVENTS.has(type) && response) {
      response.id = genId;
      response.model = model();
      response.previous_response_id = previousResponseId;
      if (meta) response.usage = responsesUsageBody(meta);
      if (isTerminalEvent(type)) response.output_text = outputText(arrayMember(response, 'output'));
    }
    if (typeof event.response_id === 'string') event.response_id = genId;
    return `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
  };
}
