import { once } from 'node:events';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { APART_CHARS, GATHER_BYTES, GATHER_WINDOW_BYTES, HOLD_BYTES, SseWriter } from './sse-writer.js';

/**
 * A server whose one request hands its response to the test, and the client's response (it arrives with
 * the headers, that is with the first write).
 */
async function setup(): Promise<{ server: Server; res: ServerResponse; client: Promise<IncomingMessage> }> {
  let handed: ((res: ServerResponse) => void) | undefined;
  const gotResponse = new Promise<ServerResponse>((resolve) => {
    handed = resolve;
  });
  const server = createServer((_req, res) => handed?.(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const client = new Promise<IncomingMessage>((resolve) => {
    get({ host: '127.0.0.1', port, path: '/' }, resolve);
  });
  servers.push(server);
  const res = await gotResponse;
  responses.push(res);
  return { server, res, client };
}

const servers: Server[] = [];
const responses: ServerResponse[] = [];
// Every response closed before the next test: a writer counts the streams still open (its first frame leaves
// at once only when it is the only one).
afterEach(async () => {
  for (const server of servers.splice(0)) server.closeAllConnections();
  await Promise.all(responses.splice(0).map((res) => (res.destroyed ? undefined : once(res, 'close'))));
});

async function readAll(client: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of client) text += String(chunk);
  return text;
}

/** A writer whose first event (`{"first":1}`) went out, with the client's response. */
async function firstEventSent(): Promise<{ res: ServerResponse; sse: SseWriter; client: IncomingMessage }> {
  const { res, client } = await setup();
  const sse = new SseWriter(res, {}, 60_000);
  sse.data('{"first":1}');
  return { res, sse, client: await client };
}

/** Calls `seen` with every piece written to `res` (before it is written). */
function watchWrites(res: ServerResponse, seen: (piece: Uint8Array | string) => void): void {
  const write = res.write.bind(res);
  res.write = ((piece: Uint8Array | string, ...rest: never[]) => {
    seen(piece);
    return write(piece, ...rest);
  }) as typeof res.write;
}

/** Every piece written to `res` as text, and its end as `end:<last piece>`, in order. */
function writesAndEnd(res: ServerResponse): string[] {
  const writes: string[] = [];
  watchWrites(res, (piece) => writes.push(String(piece)));
  const end = res.end.bind(res);
  res.end = ((piece?: string, ...rest: never[]) => {
    writes.push(`end:${piece ?? ''}`);
    return end(piece as string, ...rest);
  }) as typeof res.end;
  return writes;
}

describe('SseWriter', () => {
  it('sends keep-alive comments until the first event, with the headers, then events framed with LF', async () => {
    const setupDone = await setup();
    const sse = new SseWriter(setupDone.res, { 'x-request-id': 'req_1' }, 5);
    expect(sse.started).toBe(false);
    const client = await setupDone.client;
    const firstChunk = await new Promise<string>((resolve) =>
      client.once('data', (chunk) => resolve(String(chunk))),
    );
    expect(firstChunk).toBe(': keep-alive\n\n');
    expect(sse.started).toBe(true);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['x-request-id']).toBe('req_1');
    sse.data('{"a":1}');
    sse.raw('event: x\ndata: {}\n\n');
    sse.end();
    const rest = await readAll(client);
    expect(rest.replaceAll(': keep-alive\n\n', '')).toBe('data: {"a":1}\n\nevent: x\ndata: {}\n\n');
  });

  it('writes frames made of text and bytes in order, gathered with text frames', async () => {
    const { res, client: responded } = await setup();
    const sse = new SseWriter(res, {}, 60_000);
    const bytes = Buffer.from('"é😀 bytes"}');
    sse.raw(['data: {"first":', new Uint8Array(bytes), '\n\n']);
    sse.data('{"second":1}');
    sse.raw(['data: {"third":', bytes.subarray(1), '\n\n']);
    sse.raw('data: {"fourth":2}\n\n');
    sse.end();
    expect(await readAll(await responded)).toBe(
      'data: {"first":"é😀 bytes"}\n\ndata: {"second":1}\n\ndata: {"third":é😀 bytes"}\n\ndata: {"fourth":2}\n\n',
    );
  });

  it('writes ASCII text as Latin-1 and other text as UTF-8, whichever comes first in a write', async () => {
    const { res, client: responded } = await setup();
    const encodings: string[] = [];
    const write = res.write.bind(res);
    res.write = ((piece: string, encoding: BufferEncoding) => {
      encodings.push(encoding);
      return write(piece, encoding);
    }) as typeof res.write;
    const end = res.end.bind(res);
    res.end = ((piece: string, encoding: BufferEncoding) => {
      encodings.push(`end:${encoding}`);
      return end(piece, encoding);
    }) as typeof res.end;
    const sse = new SseWriter(res, {}, 60_000);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    // ÿ is one byte in Latin-1 and in V8's one-byte strings, but two in UTF-8; U+2028 and 😀 are wider.
    const events = [
      '{"a":"plain"}',
      '{"b":"ÿ é \u2028   😀"}',
      '{"c":"plain"}',
      '{"d":"plain"}',
      '{"e":"ÿ"}',
    ];
    sse.data(events[0] as string); // the first frame, alone: at once
    sse.data(events[1] as string);
    sse.data(events[2] as string);
    await turn();
    sse.data(events[3] as string);
    await turn();
    sse.data(events[4] as string);
    sse.end();
    const chunks: Buffer[] = [];
    for await (const chunk of await responded) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(Buffer.from(events.map((e) => `data: ${e}\n\n`).join('')))).toBe(
      true,
    );
    expect(encodings).toEqual(['latin1', 'utf8', 'latin1', 'end:utf8']);
  });

  it('writes long text as chunks of its own, each ASCII one as Latin-1, in order with the text around it', async () => {
    const { res, sse, client } = await firstEventSent();
    const writes: string[] = [];
    const write = res.write.bind(res);
    res.write = ((piece: string, encoding: BufferEncoding) => {
      writes.push(`${encoding}:${piece.length}`);
      return write(piece, encoding);
    }) as typeof res.write;
    const long = `data: ${'x'.repeat(APART_CHARS)}\n\n`;
    const wideLong = `data: ${'é'.repeat(APART_CHARS)}\n\n`;
    const frames = ['data: a\n\n', long, 'data: ÿ\n\n', 'data: b\n\n', wideLong, 'data: c\n\n'];
    for (const frame of frames) sse.raw(frame);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([
      'latin1:9',
      `latin1:${long.length}`,
      'utf8:18', // `ÿ` and the ASCII event after it, joined
      `utf8:${wideLong.length}`,
      'latin1:9',
    ]);
    sse.end();
    const chunks: Buffer[] = [];
    for await (const chunk of client) chunks.push(chunk as Buffer);
    const expected = Buffer.from(['data: {"first":1}\n\n', ...frames].join(''));
    expect(Buffer.concat(chunks).equals(expected)).toBe(true);
  });

  it('copies bytes that wait for a client that is behind, so they hold no more memory than their size', async () => {
    const { res, sse, client } = await blockedWriter();
    const written: Uint8Array[] = [];
    watchWrites(res, (piece) => {
      if (typeof piece !== 'string') written.push(piece);
    });
    const read = Buffer.alloc(64 * 1024, 'y');
    sse.raw(['data: ', read.subarray(0, 100), '\n\n']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toHaveLength(1);
    expect(written[0]?.byteLength).toBe(100);
    expect(written[0]?.buffer.byteLength).toBeLessThan(read.buffer.byteLength);
    client.destroy();
  });

  it('gathers the frames of one turn into one write, up to 64 KiB while the client keeps up', async () => {
    const { res, sse, client } = await firstEventSent();
    const writes: number[] = [];
    watchWrites(res, (piece) => writes.push(typeof piece === 'string' ? piece.length : piece.byteLength));
    const frame = `data: ${'x'.repeat(1_000)}\n\n`;
    const answers = [sse.raw(frame)];
    while (answers.length < 200 && answers.at(-1)) answers.push(sse.raw(frame));
    // Node 20's default high-water mark is 16 KiB, Node 22's 64 KiB: the larger of it and GATHER_BYTES.
    expect(answers).toHaveLength(Math.ceil(Math.max(GATHER_BYTES, res.writableHighWaterMark) / frame.length));
    expect(writes).toEqual([]);
    await sse.drained(
      10_000,
      () => new Error('stalled'),
      () => new Error('closed'),
    );
    expect(writes).toEqual([answers.length * frame.length]);
    sse.end();
    const text = await readAll(client);
    expect(text.split('data: ')).toHaveLength(answers.length + 2);
  });

  it('gathers only up to the high-water mark once a stream handed GATHER_WINDOW_BYTES on, even with a client that keeps up', async () => {
    const { res, sse, client } = await firstEventSent();
    const reading = readAll(client);
    const frame = `data: ${'x'.repeat(1_000)}\n\n`;
    const stalled = () => new Error('stalled');
    const closed = () => new Error('closed');
    /** One piece of work: frames until the writer asks to wait; how many it took. */
    const turn = async (): Promise<number> => {
      let taken = 1;
      while (taken < 200 && sse.raw(frame)) taken += 1;
      await sse.drained(10_000, stalled, closed);
      // The client read it all: the next turn starts with nothing buffered.
      await expect.poll(() => res.writableLength, { timeout: 5_000 }).toBe(0);
      return taken;
    };
    const wide = Math.ceil(Math.max(GATHER_BYTES, res.writableHighWaterMark) / frame.length);
    let handed = frame.length;
    while (handed < GATHER_WINDOW_BYTES) {
      const taken = await turn();
      expect(taken).toBe(wide);
      handed += taken * frame.length;
    }
    expect(await turn()).toBe(Math.ceil(res.writableHighWaterMark / frame.length));
    sse.end();
    expect((await reading).split('data: ').length).toBeGreaterThan(GATHER_WINDOW_BYTES / frame.length);
  });

  it('hands what it gathered to the response once the work at hand is done, before the next I/O or timer', async () => {
    const { res, sse, client } = await firstEventSent();
    const writes: string[] = [];
    watchWrites(res, (piece) => writes.push(String(piece)));
    // Queued before the frames: it runs after the reads in this turn, where a flush in a later phase would
    // leave the frames alive (and copied by every scavenge) meanwhile.
    const seenByNextImmediate = new Promise<string[]>((resolve) => setImmediate(() => resolve([...writes])));
    await Promise.resolve();
    sse.data('{"second":2}');
    await Promise.resolve();
    sse.data('{"third":3}');
    expect(writes).toEqual([]);
    expect(await seenByNextImmediate).toEqual(['data: {"second":2}\n\ndata: {"third":3}\n\n']);
    sse.end();
    expect(await readAll(client)).toBe('data: {"first":1}\n\ndata: {"second":2}\n\ndata: {"third":3}\n\n');
  });

  it('gathers the first frame too while another stream is written, and sends it at once again when alone', async () => {
    const other = await setup();
    const otherSse = new SseWriter(other.res, {}, 60_000);
    const { res, client } = await setup();
    const writes: string[] = [];
    watchWrites(res, (piece) => writes.push(String(piece)));
    const sse = new SseWriter(res, {}, 60_000);
    sse.data('{"first":1}');
    sse.data('{"second":2}');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['data: {"first":1}\n\ndata: {"second":2}\n\n']);
    sse.end();
    expect(await readAll(await client)).toBe('data: {"first":1}\n\ndata: {"second":2}\n\n');
    // Both streams end (a writer counts its stream until the response's `close`): the next one is alone
    // again, and its first frame leaves before anything else.
    otherSse.end();
    await readAll(await other.client);
    for (const closing of [res, other.res]) if (!closing.destroyed) await once(closing, 'close');
    const alone = await setup();
    const aloneWrites: string[] = [];
    watchWrites(alone.res, (piece) => aloneWrites.push(String(piece)));
    const aloneSse = new SseWriter(alone.res, {}, 60_000);
    aloneSse.data('{"first":1}');
    expect(aloneWrites).toEqual(['data: {"first":1}\n\n']);
    aloneSse.end();
    await readAll(await alone.client);
  });

  it('gathers only up to the high-water mark, with what the response buffers, once the client is behind', async () => {
    const { res, sse, client } = await firstEventSent();
    res.cork();
    res.write(': behind\n\n');
    const buffered = res.writableLength;
    expect(buffered).toBeGreaterThan(0);
    const frame = `data: ${'x'.repeat(1_000)}\n\n`;
    const answers = [sse.raw(frame)];
    while (answers.length < 200 && answers.at(-1)) answers.push(sse.raw(frame));
    expect(answers).toHaveLength(Math.ceil((res.writableHighWaterMark - buffered) / frame.length));
    res.uncork();
    sse.end();
    const text = await readAll(client);
    expect(text.split('data: ')).toHaveLength(answers.length + 2);
  });

  it('holds what is gathered once the last part was read, and sends it with the closing frames in one write', async () => {
    const { res, sse, client } = await firstEventSent();
    const writes = writesAndEnd(res);
    sse.data('{"second":2}');
    sse.holdToEnd();
    // The turn ends (the gathered frame would leave here) while the record is journaled.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([]);
    sse.raw('data: [DONE]\n\n');
    sse.end();
    expect(writes).toEqual(['end:data: {"second":2}\n\ndata: [DONE]\n\n']);
    expect(await readAll(client)).toBe('data: {"first":1}\n\ndata: {"second":2}\n\ndata: [DONE]\n\n');
  });

  it('sends what is gathered at once when it is more than a stream end waits with; the closing frames follow', async () => {
    const { res, sse, client } = await firstEventSent();
    const writes = writesAndEnd(res);
    const long = `data: ${'x'.repeat(HOLD_BYTES)}\n\n`;
    sse.raw(long);
    sse.holdToEnd();
    expect(writes).toEqual([long]);
    await new Promise((resolve) => setImmediate(resolve));
    sse.raw('data: [DONE]\n\n');
    sse.end();
    expect(writes).toEqual([long, 'end:data: [DONE]\n\n']);
    expect(await readAll(client)).toBe(`data: {"first":1}\n\n${long}data: [DONE]\n\n`);
  });

  it('knows the client drained when it did so with nobody waiting (a flush at the end of a turn filled it)', async () => {
    const { res, sse, client } = await blockedWriter();
    const drained = once(res, 'drain');
    client.resume();
    await drained;
    expect(sse.raw('data: {"after":1}\n\n')).toBe(true);
    await sse.drained(
      1_000,
      () => new Error('stalled'),
      () => new Error('closed'),
    );
    sse.end();
    expect(await readAll(client)).toContain('data: {"after":1}');
  });

  it('answers false once the client stops reading, and drained() waits until it reads again', async () => {
    const { sse, client } = await blockedWriter();
    let drained = false;
    const waiting = sse
      .drained(
        10_000,
        () => new Error('stalled'),
        () => new Error('closed'),
      )
      .then(() => {
        drained = true;
      });
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    client.resume();
    await waiting;
    expect(drained).toBe(true);
    sse.end();
  });

  it('rejects drained() with the stall error when the client reads nothing for the limit', async () => {
    const { sse } = await blockedWriter();
    await expect(
      sse.drained(
        50,
        () => new Error('stalled'),
        () => new Error('closed'),
      ),
    ).rejects.toThrow('stalled');
  });

  it('rejects drained() with the close error when the client goes away', async () => {
    const { sse, client } = await blockedWriter();
    const waiting = sse.drained(
      10_000,
      () => new Error('stalled'),
      () => new Error('closed'),
    );
    client.destroy();
    await expect(waiting).rejects.toThrow('closed');
    expect(sse.isClosed).toBe(true);
  });
});

/** A writer whose client stopped reading after the first event, once its buffers are full. */
async function blockedWriter() {
  const { res, client: responded } = await setup();
  const sse = new SseWriter(res, {}, 60_000);
  sse.comment('start');
  const client = await responded;
  client.pause();
  await fillUntilBlocked(sse, res);
  return { res, sse, client };
}

/**
 * Writes until the writer reports a full buffer that stays full after the socket was uncorked: the kernel's
 * buffers are full too, so the client really is not reading.
 */
async function fillUntilBlocked(sse: SseWriter, res: ServerResponse): Promise<void> {
  const frame = `data: ${'x'.repeat(64 * 1024)}\n\n`;
  for (let writes = 0; writes < 4_000; writes += 1) {
    if (sse.raw(frame)) continue;
    await new Promise((resolve) => setImmediate(resolve));
    if ((res.socket?.writableLength ?? 0) > 0) return;
  }
  throw new Error('the client never stopped taking data');
}
