import { type DestinationStream, type Logger, pino } from 'pino';
import type { LoggingEnv } from '../config/env.js';
import { isRecord, tryParseJson } from '../json/json.js';
import { StdoutSink } from './stdout-sink.js';

export type { Logger };

export interface LoggerOptions extends LoggingEnv {
  /** Whether stdout is a terminal (pretty lines unless LOG_FORMAT says json). */
  terminal: boolean;
  /** Where lines go; default stdout (non-blocking writes in batches, flushed at exit). */
  destination?: DestinationStream;
}

/**
 * Lines are gathered up to this many characters before a write (one write per ~20 access lines instead of
 * one each; measured: a write per line was a tenth of the gateway's CPU under load). Flushed at shutdown.
 */
const LOG_BUFFER_CHARS = 8 * 1024;
/** Longest a gathered line waits before it is written. */
const LOG_FLUSH_INTERVAL_MS = 200;
/**
 * Most log text waiting for standard output (a reader that is behind or stopped: a full pipe, a stalled log
 * collector). Lines beyond it are dropped and counted (`droppedLogLines`) instead of filling memory.
 */
export const LOG_MAX_PENDING_BYTES = 16 * 1024 * 1024;
/** How long the process, exiting, keeps trying to write what waits for a full standard output. */
export const LOG_EXIT_FLUSH_MS = 1_000;

/**
 * The gateway's logger: pino JSON lines on stdout (`level` as a word, `time` as ISO-8601), or, on a terminal,
 * one readable line per entry formatted here (no pretty-printing dependency). Built once at start-up.
 */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.format === 'pretty' || (options.format === undefined && options.terminal);
  const destination = options.destination ?? (pretty ? prettyStdout() : jsonStdout());
  const logger = pino(
    {
      level: options.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return logger;
}

/** Log lines dropped since start because standard output did not take them (see LOG_MAX_PENDING_BYTES). */
export function droppedLogLines(): number {
  return dropped;
}

let dropped = 0;
/** Set when the process exits: from then on a full standard output is retried only until this time. */
let exitDeadline = Number.POSITIVE_INFINITY;

/** JSON lines on stdout, gathered in batches, each written at once on this thread (`StdoutSink`). */
function jsonStdout(): LineBatches {
  const sink = new StdoutSink({
    // Through `process.stdout`, which makes a pipe non-blocking: a full pipe then answers EAGAIN (retried,
    // bounded at exit) instead of blocking a write, and the event loop with it, until its reader comes back.
    fd: process.stdout.fd,
    maxPendingBytes: LOG_MAX_PENDING_BYTES,
    onDrop: (text) => {
      dropped += countLines(text);
    },
    retryFull: () => Date.now() < exitDeadline,
  });
  return new LineBatches(sink, LOG_BUFFER_CHARS, LOG_FLUSH_INTERVAL_MS);
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

/** Every `LineBatches`, flushed when the process exits. */
const atExit = new Set<LineBatches>();

/**
 * Runs when the process exits: hands every batch over and writes for at most LOG_EXIT_FLUSH_MS; what a
 * stopped reader does not take by then is dropped, so that a stalled log collector never keeps the process
 * from exiting.
 */
function flushAllAtExit(): void {
  exitDeadline = Date.now() + LOG_EXIT_FLUSH_MS;
  for (const batches of atExit) batches.flushSync();
  atExit.clear();
}

/** What `LineBatches` writes to (`StdoutSink`). */
export interface LineSink {
  readonly destroyed?: boolean;
  write(text: string): unknown;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
  destroy(): void;
}

/**
 * Hands lines to the output a batch at a time: one system call per batch instead of one per line, and one
 * join per batch (line by line, pino's own writer measured its growing pending text with `Buffer.byteLength`
 * on every write, flattening it each time: about 5 KB copied per access line, 2026-11-28). The last lines are
 * handed over by `flush`, at exit, and at most `flushAfterMs` after they were written.
 */
export class LineBatches implements DestinationStream {
  #lines: string[] = [];
  #chars = 0;
  #timer: NodeJS.Timeout | undefined;

  /**
   * `flushAfterMs`: the longest a gathered line waits (a quiet gateway's lines are not held back); the timer
   * runs only while lines wait, so an idle gateway is not woken for nothing. 0: only `batchChars` and
   * `flush` hand lines over.
   */
  constructor(
    private readonly sink: LineSink,
    private readonly batchChars: number,
    private readonly flushAfterMs = 0,
  ) {
    if (atExit.size === 0) process.prependListener('exit', flushAllAtExit);
    atExit.add(this);
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.batchChars) this.#handOver();
    else if (this.#timer === undefined && this.flushAfterMs > 0) {
      this.#timer = setTimeout(this.#flushLater, this.flushAfterMs);
      this.#timer.unref();
    }
  }

  flush(callback?: (error?: Error) => void): void {
    this.#handOver();
    this.sink.flush(callback);
  }

  readonly #flushLater = (): void => {
    this.#timer = undefined;
    this.flush();
  };

  /** Writes everything now; gives up (dropping the rest) when standard output stays full past the deadline. */
  flushSync(): void {
    if (this.sink.destroyed) return;
    this.#handOver();
    try {
      this.sink.flushSync();
    } catch {
      // Standard output is gone or stays full: drop what waits, so that nothing retries it again.
      this.sink.destroy();
    }
  }

  #handOver(): void {
    if (this.#lines.length === 0) return;
    const text = this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    this.sink.write(text);
  }
}

/**
 * Writes an `info` entry of flat fields to the logger's destination in one `JSON.stringify`, byte for byte
 * the line pino writes for `logger.info(fields, msg)` (level, time, the fields in order without undefined
 * ones, msg). It is the access line, written for every request: pino serialises value by value, which
 * allocated about 4 KB per access line (V8's sampling heap profiler, 2026-11-28).
 */
export function logInfoFields(logger: Logger, fields: object, msg: string): void {
  if (!logger.isLevelEnabled('info')) return;
  const stream = (logger as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym];
  if (stream === undefined) {
    logger.info(fields, msg);
    return;
  }
  const json = JSON.stringify(fields);
  const members = json.length > 2 ? `,${json.slice(1, -1)}` : '';
  stream.write(
    `{"level":"info","time":"${new Date().toISOString()}"${members},"msg":${JSON.stringify(msg)}}\n`,
  );
}

/** A logger that writes nothing (tests, tools). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** `12:00:01.234 INFO  message key=value ...`, from pino's JSON line. */
export function prettyLine(line: string): string {
  const entry = tryParseJson(line);
  if (!isRecord(entry)) return line;
  const { time, level, msg, ...rest } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const fields = Object.entries(rest)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${clock} ${String(level).toUpperCase().padEnd(5)} ${String(msg ?? '')}${fields ? ` ${fields}` : ''}\n`;
}

function prettyStdout(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(prettyLine(line)) };
}
