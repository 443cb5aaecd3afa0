/**
 * The Responses stream events that announce a response without any of its output: the response itself
 * (`response.created`, `response.queued`, `response.in_progress`) and an output item, content part or
 * reasoning summary part opened empty (`response.output_item.added`, `response.content_part.added`,
 * `response.reasoning_summary_part.added`). A stream is committed to at its first other event
 * (pipeline/preliminary-parts.ts), and a native upstream's `response.failed` before any other is the attempt's
 * failure (providers/openai/responses-event-parts.ts).
 */
const ANNOUNCING_EVENTS: ReadonlySet<unknown> = new Set([
  'response.created',
  'response.queued',
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
  'response.reasoning_summary_part.added',
]);

export function announcesResponse(type: unknown): boolean {
  return ANNOUNCING_EVENTS.has(type);
}
