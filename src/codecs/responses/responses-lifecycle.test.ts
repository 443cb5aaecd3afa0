import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../json/json.js';
import { responsesLifecycle } from './responses-lifecycle.js';

const run = (events: JsonObject[]): string[] => {
  const repair = responsesLifecycle();
  return events.flatMap((event) => repair(event)).map((event) => String(event.type));
};

const message = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [] };
const text = (type: string, extra: JsonObject = {}): JsonObject => ({
  type,
  item_id: 'msg_1',
  output_index: 0,
  content_index: 0,
  ...extra,
});

describe('responsesLifecycle', () => {
  it('leaves a complete stream alone, event for event', () => {
    const events: JsonObject[] = [
      { type: 'response.created', response: {} },
      { type: 'response.output_item.added', output_index: 0, item: message },
      text('response.content_part.added', { part: { type: 'output_text', text: '' } }),
      text('response.output_text.delta', { delta: 'Hi' }),
      text('response.output_text.done', { text: 'Hi' }),
      text('response.content_part.done', { part: { type: 'output_text', text: 'Hi' } }),
      { type: 'response.output_item.done', output_index: 0, item: message },
      { type: 'response.completed', response: { output: [message] } },
    ];
    const repair = responsesLifecycle();
    for (const event of events) expect(repair(event)).toStrictEqual([event]);
  });

  it('inserts created, the item and its part before the first delta, and closes both at the end', () => {
    const final = { ...message, content: [{ type: 'output_text', text: 'Hi', annotations: [] }] };
    expect(
      run([
        text('response.output_text.delta', { delta: 'Hi' }),
        { type: 'response.completed', response: { output: [final] } },
      ]),
    ).toStrictEqual([
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('announces a function call first seen by its arguments as a function_call item', () => {
    const repair = responsesLifecycle();
    repair({ type: 'response.created', response: {} });
    const [added] = repair({
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 0,
      delta: '{',
    });
    expect(added).toMatchObject({
      type: 'response.output_item.added',
      item: { type: 'function_call', id: 'fc_1', status: 'in_progress' },
    });
  });

  it('opens a reasoning summary part before its text', () => {
    const types = run([
      { type: 'response.created', response: {} },
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 0,
        delta: 'x',
      },
    ]);
    expect(types).toStrictEqual([
      'response.created',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
    ]);
  });

  it('announces an item that arrives only done, emptied and in progress', () => {
    const repair = responsesLifecycle();
    repair({ type: 'response.created', response: {} });
    const done = { ...message, content: [{ type: 'output_text', text: 'Hi' }] };
    const [added, same] = repair({ type: 'response.output_item.done', output_index: 0, item: done });
    expect(added).toMatchObject({
      type: 'response.output_item.added',
      item: { status: 'in_progress', content: [] },
    });
    expect(same?.item).toBe(done);
  });

  it('closes an item the terminal response does not list as incomplete', () => {
    const repair = responsesLifecycle();
    repair({ type: 'response.created', response: {} });
    repair(text('response.output_text.delta', { delta: 'Hi' }));
    const out = repair({ type: 'response.incomplete', response: { output: [] } });
    expect(out.map((event) => event.type)).toStrictEqual([
      'response.output_item.done',
      'response.incomplete',
    ]);
    expect(out[0]).toMatchObject({ item: { id: 'msg_1', status: 'incomplete' } });
  });

  it('lets response.failed follow the error event at once, items left as they were', () => {
    const repair = responsesLifecycle();
    repair({ type: 'response.created', response: {} });
    repair(text('response.output_text.delta', { delta: 'Hi' }));
    expect(repair({ type: 'error', code: 'x' }).map((event) => event.type)).toStrictEqual(['error']);
    const failed = { type: 'response.failed', response: { output: [] } };
    expect(repair(failed)).toStrictEqual([failed]);
  });
});
