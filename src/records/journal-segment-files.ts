import { readFileSync, writeSync } from 'node:fs';
import { type JournalLine, parseLine } from './journal-entries.js';

/**
 * Reading and writing the journal's segment files (one JSON line per entry, journal-entries.ts), for
 * `RecordJournal`: the replay at start and the grouped writes of a running journal.
 */

/** Writes all of `text`; `writeSync` may write less than asked. */
export function writeFully(fd: number, text: string): number {
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
  return bytes.length;
}

/**
 * Every line of these segments, in order, for the replay; a line that does not parse (a write cut by a
 * crash) is counted in `corrupt` and skipped.
 */
export function readSegmentLines(files: readonly string[]): { lines: JournalLine[]; corrupt: number } {
  const lines: JournalLine[] = [];
  let corrupt = 0;
  for (const file of files) {
    for (const text of readFileSync(file, 'utf8').split('\n')) {
      if (text === '') continue;
      const line = parseLine(text);
      if (line) lines.push(line);
      else corrupt += 1;
    }
  }
  return { lines, corrupt };
}
