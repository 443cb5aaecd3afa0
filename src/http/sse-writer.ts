import type { ServerResponse } from 'node:http';
import { withMembers } from '../json/with-members.js';
import type { Frame } from './frame.js';

/** What a stream gathers from one piece of work (a network read's events) while its client keeps up. */
export const GATHER_BYTES = 64 * 1024;

/**
 * How much of a stream may leave in writes of up to `GATHER_BYTES`; past it, writes are bounded by the
 * response's high-water mark. A model's answer is far shorter; a stream that runs on for megabytes is most
 * often one whose client stopped reading while the kernel's socket buffers still took its bytes, and its
 * last write, the one the kernel refuses, stays in the process until the client reads or the stall timeout
 * ends it: with 200 such clients, 64 KiB writes held about 20 MB more than 16 KiB ones.
 */
export const GATHER_WINDOW_BYTES = 1024 * 1024;

/**
 * What a stream's end waits with at most: more than this leaves at once when the last part was read, and the
 * closing frames follow in a write of their own. Held frames stay alive while other streams are read (the
 * journal line comes at the end of the turn), and a 250-delta stream's last read is about 64 KB of them: a
 * heap snapshot under 64 such streams found 2.1 MB of frames waiting so.
 */
export const HOLD_BYTES = 8 * 1024;

/**
 * Text at least this long is written as a chunk of its own instead of being joined to what was gathered
 * before it (all of a turn's chunks still leave in one write: Node corks the socket until the next tick). V8
 * copies a joined string once more, into a string of the whole, before it copies that out.
 */
export const APART_CHARS = 4 * 1024;

/** Streams this process is writing (counted from the writer's start to its response's `close`). */
let streamsOpen = 0;

/**
 * Writes a server-sent event stream to the client, LF framing. An event is never split across writes; events
 * that become ready in the same piece of work (a callback and the promise jobs it starts: the events of one
 * network read of the upstream) leave together as ONE chunk of the response (gathered as text until that work
 * is done), which saves a system call and the chunked-encoding framing per event. Until the first event,
 * `: keep-alive` comments go out every `keepAliveMs` (the headers are sent with the first of either), so a
 * request that fails before anything was written still gets a proper HTTP error status.
 *
 * Backpressure: `data` and `raw` answer false once the socket's buffer is full; the caller then waits for
 * `drained()` before it reads more from the upstream, so a client that does not read costs a bounded buffer.
 */
export class SseWriter {
  private timer: NodeJS.Timeout | undefined;
  private headersSent = false;
  private closed = false;
  /** Events gathered in this piece of work, not yet handed to the response: text, then bytes. */
  private pending = '';
  /** True while `pending` is all ASCII (see `addText`). */
  private pendingAscii = true;
  /** Pieces gathered before `pending` (where a frame held bytes, or text of `APART_CHARS`), in order. */
  private queued: (string | Uint8Array)[] = [];
  /** For each of `queued`: whether it is text that is all ASCII. */
  private queuedAscii: boolean[] = [];
  /** Size of what is gathered (characters of text plus bytes). */
  private pendingSize = 0;
  /** True once the first frame came (it goes at once while no other stream is open; see `write`). */
  private firstSent = false;
  /** True once the last part was read: what is gathered leaves with the closing frames (`holdToEnd`). */
  private holding = false;
  /** Size of what was handed to the response so far (characters of text plus bytes), up to the window. */
  private handed = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
    keepAliveMs: number,
  ) {
    this.timer = setInterval(() => this.comment('keep-alive'), keepAliveMs);
    this.timer.unref();
    // A response emits `close` once, whether it ended or its connection went; `destroyed` is set by then.
    if (!res.destroyed) {
      streamsOpen++;
      res.once('close', streamClosed);
    }
  }

  /** True once anything (even a comment) reached the client: errors must then go in-stream. */
  get started(): boolean {
    return this.headersSent;
  }

  /** True when the client went away or the stream ended. */
  get isClosed(): boolean {
    return this.closed || this.res.destroyed;
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  /** `data: <json>`; false when the client's buffer is full (wait for `drained()`). */
  data(json: string): boolean {
    this.stopKeepAlive();
    return this.write(`data: ${json}\n\n`);
  }

  /** An already framed event (e.g. `event: x\ndata: y\n\n`); false when the client's buffer is full. */
  raw(frame: Frame): boolean {
    this.stopKeepAlive();
    return this.write(frame);
  }

  /**
   * Resolves once the client read what was buffered; rejects with `onStall()`'s error when it read nothing
   * for `stalledMs`, or with `onClose()`'s when it went away.
   */
  drained(stalledMs: number, onStall: () => Error, onClose: () => Error): Promise<void> {
    this.flush();
    // The response's own flag: set by any write that found its buffer full (this one, or a flush once the
    // work at hand was done), cleared when it emits 'drain'.
    if (!this.res.writableNeedDrain)
      return this.res.destroyed ? Promise.reject(onClose()) : Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClosed);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => done();
      const onClosed = () => done(onClose());
      const timer = setTimeout(() => done(onStall()), stalledMs);
      this.res.on('drain', onDrain);
      this.res.on('close', onClosed);
      if (this.res.destroyed) done(onClose());
    });
  }

  end(): void {
    this.stopKeepAlive();
    if (this.closed) return;
    this.closed = true;
    if (!this.headersSent) this.sendHeaders();
    this.writeQueued();
    const rest = this.pending;
    this.pending = '';
    this.pendingSize = 0;
    if (rest === '') this.res.end();
    else this.res.end(rest, this.pendingAscii ? 'latin1' : 'utf8');
  }

  /** Cuts the connection (a client that stopped reading cannot be sent a proper end). */
  destroy(): void {
    this.stopKeepAlive();
    this.closed = true;
    this.res.destroy();
  }

  stopKeepAlive(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * The stream's last part was read and only its closing frames are to come (after the record is journaled):
   * what is gathered waits for them, so that the end of a stream leaves in one write instead of two, unless it
   * is more than `HOLD_BYTES` (it leaves now).
   */
  holdToEnd(): void {
    if (this.pendingSize > HOLD_BYTES) this.flush();
    this.holding = true;
  }

  /**
   * The stream's first frame leaves at once while it is the only stream the process writes (the first token is
   * never held back); with others open it is gathered like the rest, which saves a write (and the client's
   * wake-up) per stream whose upstream sent it in one read, where the first frame would otherwise leave
   * alone. Later frames are gathered until the work at hand is done (`process.nextTick`: after the promise
   * jobs of the read being framed, before any other I/O or timer). Not later: under load a turn of the event
   * loop reads many streams, and frames waiting for its end are alive at every scavenge in between, copied
   * and promoted, and then freed by full collections.
   *
   * False (wait for `drained()`) once what is gathered and what the response still buffers reach its
   * high-water mark, as a direct write would answer; while the client keeps up (the response buffers nothing)
   * and the stream has not yet handed `GATHER_WINDOW_BYTES` to the response, once what is gathered reaches
   * `GATHER_BYTES` (or the high-water mark if higher): a network read of a provider's stream often holds more
   * than the high-water mark of 16 KiB of events (250 one-token deltas are about 37 KB), which would otherwise
   * leave in three writes instead of one. The gateway's server sets 16 KiB on every Node
   * (`HIGH_WATER_BYTES`, http/create-http-server.ts); another server's responses may have Node's default.
   */
  private write(frame: Frame): boolean {
    if (this.isClosed) return true;
    if (!this.headersSent) this.sendHeaders();
    if (!this.firstSent) {
      this.firstSent = true;
      if (streamsOpen <= 1) {
        this.gather(frame);
        this.flush();
        return !this.res.writableNeedDrain;
      }
    }
    if (this.pendingSize === 0) process.nextTick(this.flush);
    this.gather(frame);
    if (this.res.writableNeedDrain) return false;
    const buffered = this.res.writableLength;
    if (buffered === 0 && this.handed < GATHER_WINDOW_BYTES)
      return this.pendingSize < Math.max(GATHER_BYTES, this.res.writableHighWaterMark);
    return this.pendingSize + buffered < this.res.writableHighWaterMark;
  }

  private gather(frame: Frame): void {
    if (typeof frame === 'string') {
      this.addText(frame);
      return;
    }
    for (const piece of frame) {
      if (typeof piece === 'string') {
        this.addText(piece);
        continue;
      }
      this.queuePending();
      this.queued.push(piece);
      this.queuedAscii.push(false);
      this.pendingSize += piece.byteLength;
    }
  }

  /** Moves the text gathered so far to `queued`, so that what comes next follows it. */
  private queuePending(): void {
    if (this.pending === '') return;
    this.queued.push(this.pending);
    this.queuedAscii.push(this.pendingAscii);
    this.pending = '';
    this.pendingAscii = true;
  }

  /**
   * Gathers text, noting whether it is ASCII: text that is all ASCII is written as Latin-1, the same bytes,
   * which Node counts by its length and copies as it is, where it measures UTF-8 text character by character
   * (for the chunk's size line) and encodes it so. The test is one native call on each piece as it comes,
   * while it is still a string of its own. Long text (`APART_CHARS`) is written as a chunk of its own.
   */
  private addText(text: string): void {
    this.pendingSize += text.length;
    if (text.length >= APART_CHARS) {
      this.queuePending();
      this.queued.push(text);
      this.queuedAscii.push(isAsciiText(text));
      return;
    }
    if (this.pendingAscii && !isAsciiText(text)) this.pendingAscii = false;
    this.pending += text;
  }

  /**
   * Hands what was gathered to the response (text as one chunk, long text and bytes as chunks of their own, in
   * order; Node's cork makes them one write). Bytes that will wait in
   * the response's buffer (the client is behind) are copied first: a slice of a network read would hold the
   * whole read in memory while it waits.
   */
  private readonly flush = (): void => {
    if (this.holding || this.pendingSize === 0 || this.isClosed) return;
    this.writeQueued();
    if (this.pending !== '') this.res.write(this.pending, this.pendingAscii ? 'latin1' : 'utf8');
    if (this.handed < GATHER_WINDOW_BYTES) this.handed += this.pendingSize;
    this.pending = '';
    this.pendingAscii = true;
    this.pendingSize = 0;
  };

  /** Writes `queued` in order and empties it. */
  private writeQueued(): void {
    const { queued, queuedAscii } = this;
    for (let i = 0; i < queued.length; i++) {
      const piece = queued[i] as string | Uint8Array;
      if (typeof piece === 'string') this.res.write(piece, queuedAscii[i] ? 'latin1' : 'utf8');
      else this.res.write(this.res.writableLength > 0 ? ownCopy(piece) : piece);
    }
    if (queued.length > 0) {
      this.queued = [];
      this.queuedAscii = [];
    }
  }

  private sendHeaders(): void {
    this.headersSent = true;
    this.res.writeHead(
      200,
      withMembers(this.headers, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      }),
    );
  }
}

/** Whether every character of `text` is ASCII: only then is its UTF-8 as long as it is. */
function isAsciiText(text: string): boolean {
  return Buffer.byteLength(text) === text.length;
}

/** A stream's response closed (its `close` listener). */
function streamClosed(): void {
  streamsOpen--;
}

/**
 * A copy of `piece` in memory of its own size: `Buffer.from` puts small copies in Node's shared pool (8 KiB
 * slabs, 64 KiB on newer Node), where a waiting copy would keep a whole slab alive.
 */
function ownCopy(piece: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(piece.byteLength);
  copy.set(piece);
  return copy;
}
