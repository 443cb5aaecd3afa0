import { describe, expect, it } from 'vitest';
import { sseParts } from './sse-parts.js';

async function* reads(...pieces: string[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield Buffer.from(piece);
}

/** `bytes` read in pieces of `size` bytes, as a network might cut them. */
async function* readsOf(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
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
});
