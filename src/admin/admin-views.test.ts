import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { pageOf } from './admin-views.js';

const id = (item: string) => item;
const cursorOf = (itemId: string) => Buffer.from(JSON.stringify([itemId])).toString('base64url');
const refused = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof GatewayError && error.status === 400 && error.message.startsWith('cursor:');
  }
  return false;
};

describe('pageOf', () => {
  it('pages by key: after a deleted item, the next page starts at the first id above it', () => {
    const first = pageOf(['a', 'b', 'c', 'd'], id, 2);
    expect(first).toEqual({ data: ['a', 'b'], next_cursor: cursorOf('b') });
    // 'b' deleted since: the cursor still answers, from the item after it in the list's (id) order.
    expect(pageOf(['a', 'c', 'd'], id, 2, first.next_cursor ?? '')).toEqual({
      data: ['c', 'd'],
      next_cursor: null,
    });
    expect(pageOf(['a'], id, 2, first.next_cursor ?? '')).toEqual({ data: [], next_cursor: null });
  });

  it('pages a list in another order by position, and refuses the cursor of an item not in it', () => {
    const created = ['key_c', 'key_a', 'key_b'];
    const first = pageOf(created, id, 1);
    expect(pageOf(created, id, 5, first.next_cursor ?? '').data).toEqual(['key_a', 'key_b']);
    expect(refused(() => pageOf(created, id, 5, cursorOf('key_z')))).toBe(true);
  });

  it('refuses cursors it did not write', () => {
    for (const cursor of ['b', 'zzz', cursorOf('b').slice(1), `${cursorOf('b')}!`, btoa('["b"]')]) {
      expect(
        refused(() => pageOf(['a', 'b', 'c'], id, 1, cursor)),
        cursor,
      ).toBe(true);
    }
  });
});
