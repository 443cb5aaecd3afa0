import { type DestinationStream, type Logger, pino } from 'pino';
import type { LoggingEnv } from '../config/env.js';
import { isRecord, tryParseJson } from '../json/json.js';

export type { Logger };

export interface LoggerOptions extends LoggingEnv {
  /** Whether stdout is a terminal (pretty lines unless LOG_FORMAT says json). */
  terminal: boolean;
  /** Where lines go; default stdout (asynchronous writes, flushed at exit). */
  destination?: DestinationStream;
}

/**
 * Lines are gathered up to this many bytes before a write (one write per ~30 access lines instead of one
 * each; measured: a write per line was a tenth of the gateway's CPU under load). Flushed at shutdown.
 */
const LOG_BUFFER_BYTES = 8 * 1024;
/** Longest a gathered line waits before it is written. */
const LOG_FLUSH_INTERVAL_MS = 200;

/**
 * The gateway's logger: pino JSON lines on stdout (`level` as a word, `time` as ISO-8601), or, on a terminal,
 * one readable line per entry formatted here (no pretty-printing dependency). Built once at start-up.
 */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.format === 'pretty' || (options.format === undefined && options.terminal);
  const destination =
    options.destination ??
    (pretty ? prettyStdout() : pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES }));
  const logger = pino(
    {
      level: options.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  if (!options.destination && !pretty) {
    // Gathered lines still leave within a moment: a quiet gateway's lines are not held back.
    setInterval(() => logger.flush(), LOG_FLUSH_INTERVAL_MS).unref();
  }
  return logger;
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
