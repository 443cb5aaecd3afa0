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
 * The gateway's logger: pino JSON lines on stdout (`level` as a word, `time` as ISO-8601), or, on a terminal,
 * one readable line per entry formatted here (no pretty-printing dependency). Built once at start-up.
 */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.format === 'pretty' || (options.format === undefined && options.terminal);
  const destination =
    options.destination ?? (pretty ? prettyStdout() : pino.destination({ dest: 1, sync: false }));
  return pino(
    {
      level: options.level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
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
