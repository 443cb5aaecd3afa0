import { describe, expect, it } from 'vitest';
import { freshItemIds, responseEvents } from './responses-answer.js';

describe('freshItemIds', () => {
  it('gives every output item but reasoning a new id with its prefix, and the events follow', () => {
    const response = {
      id: 'resp_1',
      status: 'completed',
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'x' },
        { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] },
        { id: 'noprefix', type: 'web_search_call' },
      ],
    };
    freshItemIds(response);
    const ids = response.output.map((item) => item.id);
    expect(ids[0]).toBe('rs_1');
    expect(ids[1]).toMatch(/^fc_[0-9a-f]{32}$/);
    expect(ids[2]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(ids[3]).toMatch(/^item_[0-9a-f]{32}$/);
    expect(response.output[1]).toMatchObject({ call_id: 'call_1' });
    const named = responseEvents(response).flatMap((event) =>
      typeof event.item_id === 'string' ? [event.item_id] : [],
    );
    expect(new Set(named)).toEqual(new Set([ids[1], ids[2]]));
  });
});
