import { isRecord, type JsonObject } from '../../src/json/json.js';

/** One event of an SSE body: its `event:` name (undefined when none) and its JSON data. */
export interface SseEvent {
  name: string | undefined;
  data: JsonObject;
}

/**
 * The events of a whole SSE body, for tests (small bodies, read whole): comments skipped, `[DONE]` reported
 * apart. Every data line must be a JSON object.
 */
export function parseSse(body: string): { events: SseEvent[]; done: boolean } {
  const events: SseEvent[] = [];
  let done = false;
  for (const frame of body.split('\n\n')) {
    const lines = frame.split('\n').filter((line) => line !== '' && !line.startsWith(':'));
    if (lines.length === 0) continue;
    const name = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
    const data = lines
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length))
      .join('\n');
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    const parsed: unknown = JSON.parse(data);
    if (!isRecord(parsed)) throw new Error(`an SSE data line is not a JSON object: ${data}`);
    events.push({ name, data: parsed });
  }
  return { events, done };
}

/**
 * Problems with the item lifecycle of a Responses event stream: each output item added once, in index order,
 * its deltas and parts only while it is open, done once, and nothing after the terminal event.
 */
export function lifecycleProblems(events: JsonObject[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  let nextIndex = 0;
  let ended = false;
  for (const [position, event] of events.entries()) {
    const type = String(event.type);
    if (ended) problems.push(`#${position} ${type} after the terminal event`);
    const item = isRecord(event.item) ? event.item : undefined;
    const itemId = typeof event.item_id === 'string' ? event.item_id : String(item?.id ?? '');
    if (type === 'response.output_item.added') {
      if (event.output_index !== nextIndex)
        problems.push(`#${position} added at ${String(event.output_index)}`);
      nextIndex += 1;
      open.add(itemId);
    } else if (type === 'response.output_item.done') {
      if (!open.delete(itemId)) problems.push(`#${position} done for an item not open: ${itemId}`);
    } else if (typeof event.item_id === 'string' && !open.has(itemId)) {
      problems.push(`#${position} ${type} for an item not open: ${itemId}`);
    }
    if (['response.completed', 'response.incomplete', 'response.failed'].includes(type)) ended = true;
  }
  if (open.size > 0) problems.push(`items never done: ${[...open].join(', ')}`);
  if (!ended) problems.push('no terminal event');
  return problems;
}
