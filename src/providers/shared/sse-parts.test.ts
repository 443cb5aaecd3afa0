import { describe, expect, it } from 'vitest';
import { sseParts } from './sse-parts.js';

async function* reads(...pieces: string[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield Buffer.from(piece);
}

/** `bytes` read in pieces of `size` bytes, as a network might cut them. */
async function* readsOf(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/**
 * An exchange's `nextNow` over `arrived`, the reads as it hands them over: `null` is one that has not arrived
 * yet (undefined until something takes the `null` out), and the end once all are taken.
 */
function nextNowOf(arrived: (string | null)[]): () => IteratorResult<Uint8Array> | undefined {
  return () => {
    if (arrived.length === 0) return { done: true, value: undefined };
    const next = arrived[0] as string | null;
    if (next === null) return undefined;
    arrived.shift();
    return { done: false, value: Buffer.from(next) };
  };
}

async function drain(parts: ReturnType<typeof sseParts<string>>): Promise<string[]> {
  const reader = parts.getReader();
  const seen: string[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) return seen;
    seen.push(next.value);
  }
}

describe('sseParts', () => {
  const large = JSON.stringify({ tool: 'é'.repeat(1_500) });
  const body = `data: {"a":1}\n\ndata: ${large}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n`;

  it('gives onEvent a large event that onBytes declines, whole, and the events after it', async () => {
    const declined: number[] = [];
    const parts = sseParts<string>(reads(body), {
      mapError: (error) => error,
      onBytes: (json) => {
        declined.push(json.length);
        return false;
      },
      onEvent: (event, emit) => emit(event.data),
    });
    expect(await drain(parts)).toEqual(['{"a":1}', large, '{"b":2}', '[DONE]']);
    expect(declined).toEqual([Buffer.byteLength(large)]);
  });

  it('gives the same events whatever the reads are cut into', async () => {
    const bytes = Buffer.from(body);
    for (const size of [1, 7, 100, 1_024, 5_000]) {
      const parts = sseParts<string>(readsOf(bytes, size), {
        mapError: (error) => error,
        onBytes: () => false,
        onEvent: (event, emit) => emit(event.data),
      });
      expect(await drain(parts)).toEqual(['{"a":1}', large, '{"b":2}', '[DONE]']);
    }
  });

  it('takes the events onBytes reads from their bytes, and parses the rest', async () => {
    const parts = sseParts<string>(reads(body), {
      mapError: (error) => error,
      onBytes: (json, emit) => {
        emit(`bytes:${json.length}`);
        return true;
      },
      onEvent: (event, emit) => emit(event.data),
    });
    expect(await drain(parts)).toEqual(['{"a":1}', `bytes:${Buffer.byteLength(large)}`, '{"b":2}', '[DONE]']);
  });

  it('drops a byte order mark that opens the stream, and keeps split characters whole, whatever the reads', async () => {
    const text = 'data: {"t":"a🙂é"}\n\ndata: {"t":"\uFEFF kept"}\n\n';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    for (const size of [1, 2, 3, 5, 64]) {
      const parts = sseParts<string>(readsOf(bytes, size), {
        mapError: (error) => error,
        onEvent: (event, emit) => emit(event.data),
      });
      expect(await drain(parts)).toEqual(['{"t":"a🙂é"}', '{"t":"\uFEFF kept"}']);
    }
  });

  it('turns bytes that are not UTF-8 into replacement characters, and a character cut off at the end too', async () => {
    const bytes = Buffer.concat([
      Buffer.from('data: {"t":"'),
      Buffer.from([0xff, 0xe2, 0x82]),
      Buffer.from('"}\n\ndata: x'),
      Buffer.from([0xe2]),
    ]);
    const parts = sseParts<string>(readsOf(bytes, bytes.length), {
      mapError: (error) => error,
      onEvent: (event, emit) => emit(event.data),
    });
    expect(await drain(parts)).toEqual(['{"t":"\uFFFD\uFFFD"}', 'x\uFFFD']);
  });

  it('hands runs to `runs.take` at event boundaries, and what it declines to the parser, in order', async () => {
    const events = Array.from({ length: 60 }, (_, i) => (i % 9 === 4 ? `{"other":${i}}` : `{"r":${i}}`));
    const bytes = Buffer.from(events.map((json) => `data: ${json}\n\n`).join(''));
    const RUN = Buffer.from('data: {"r":');
    for (const size of [1, 5, 33, 200, 5_000]) {
      const starts: number[] = [];
      const parts = sseParts<string>(readsOf(bytes, size), {
        mapError: (error) => error,
        onEvent: (event, emit) => emit(`text:${event.data}`),
        runs: {
          startsAt: (read, at) =>
            read.compare(RUN, 0, RUN.length, at, Math.min(read.length, at + RUN.length)) === 0,
          take(read, at, emit) {
            starts.push(at);
            let end = at;
            // Takes whole `{"r":N}` events while they are in this read; declines every third offer.
            if (starts.length % 3 === 0) return at;
            for (;;) {
              const next = read.indexOf('\n\n', end);
              if (next === -1 || !read.subarray(end).toString().startsWith('data: {"r":')) return end;
              emit(`run:${read.toString('utf8', end + 6, next)}`);
              end = next + 2;
            }
          },
        },
      });
      const seen = await drain(parts);
      expect(seen.map((part) => part.slice(part.indexOf(':') + 1))).toEqual(events);
      if (size >= 200) expect(seen.filter((part) => part.startsWith('run:')).length).toBeGreaterThan(20);
    }
  });

  it('takes the parts of reads already in without waiting, and waits only for a read still to come', async () => {
    // Reads as the exchange hands them over: `null` is one that has not arrived when first asked for.
    const arrived: (string | null)[] = ['data: {"a":1}\n\ndata: {"b"', ':2}\n\n', null, 'data: {"c":3}\n\n'];
    let waits = 0;
    const body = {
      nextNow: nextNowOf(arrived),
      [Symbol.asyncIterator]: () => ({
        async next(): Promise<IteratorResult<Uint8Array>> {
          waits += 1;
          arrived.shift();
          const next = arrived.shift();
          return next ? { done: false, value: Buffer.from(next) } : { done: true, value: undefined };
        },
      }),
    };
    const reader = sseParts<string>(body, {
      mapError: (error) => error,
      onEvent: (event, emit) => emit(event.data),
    }).getReader();
    // The event split across the first two reads is joined, without a wait.
    expect(reader.take?.()).toEqual({ done: false, value: '{"a":1}' });
    expect(reader.take?.()).toEqual({ done: false, value: '{"b":2}' });
    expect(waits).toBe(0);
    expect(reader.take?.()).toBeUndefined();
    expect(await reader.read()).toEqual({ done: false, value: '{"c":3}' });
    expect(waits).toBe(1);
    expect(reader.take?.()?.done).toBe(true);
    expect(waits).toBe(1);
  });

  it('fails a read already in that the translation rejects, after the parts before it', async () => {
    const failure = new Error('not a chunk');
    const reads = ['data: 1\n\ndata: bad\n\n'];
    const reader = sseParts<string>(
      {
        nextNow: () => {
          const next = reads.shift();
          return next ? { done: false, value: Buffer.from(next) } : undefined;
        },
        [Symbol.asyncIterator]: () => ({
          next: async (): Promise<IteratorResult<Uint8Array>> => ({ done: true, value: undefined }),
        }),
      },
      {
        mapError: (error) => error,
        onEvent: (event, emit) => {
          if (event.data === 'bad') throw failure;
          emit(event.data);
        },
      },
    ).getReader();
    expect(reader.take?.()).toEqual({ done: false, value: '1' });
    expect(reader.take?.()).toBeUndefined();
    await expect(reader.read()).rejects.toBe(failure);
  });

  it('waits on `ready` when the body has it, never on its iterator', async () => {
    const arrived: (string | null)[] = ['data: {"a":1}\n\n', null, 'data: {"b":2}\n\n'];
    let readies = 0;
    const body = {
      nextNow: nextNowOf(arrived),
      async ready() {
        readies += 1;
        if (arrived[0] === null) arrived.shift();
      },
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<Uint8Array>> => {
          throw new Error('the iterator is not used when the body has ready');
        },
      }),
    };
    const parts = sseParts<string>(body, {
      mapError: (error) => error,
      onEvent: (event, emit) => emit(event.data),
    });
    expect(await drain(parts)).toEqual(['{"a":1}', '{"b":2}']);
    expect(readies).toBe(1);
  });
});
