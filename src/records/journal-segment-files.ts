import { readFileSync, writeSync } from 'node:fs';
import { errorMessage } from '../store/store-errors.js';
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

/** What the replay read of the segments; `damaged` names files to set aside (see `readSegmentLines`). */
export interface SegmentLines {
  lines: JournalLine[];
  /** Lines skipped: cut by a crash, damaged, or not journal lines at all. */
  corrupt: number;
  /** Files with a damaged line other than a last line cut by a crash, or that could not be read. */
  damaged: { file: string; reason: string }[];
}

/**
 * Every line of these segments, in order, for the replay. A line that does not parse is counted in `corrupt`
 * and skipped; only a last line without its line break (a write cut by a crash) is expected, so a file with
 * any other damaged line, or one that cannot be read, is named in `damaged` for the caller to keep. Read as
 * bytes, line by line: a segment may be larger than the longest string V8 makes.
 */
export function readSegmentLines(files: readonly string[]): SegmentLines {
  const lines: JournalLine[] = [];
  const damaged: SegmentLines['damaged'] = [];
  let corrupt = 0;
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      damaged.push({ file, reason: `unreadable: ${errorMessage(error)}` });
      continue;
    }
    let bad = 0;
    for (let start = 0; start < bytes.length; ) {
      const newline = bytes.indexOf(10, start);
      const end = newline === -1 ? bytes.length : newline;
      const line = end > start ? lineAt(bytes, start, end) : undefined;
      if (line) lines.push(line);
      else if (end > start && newline !== -1) bad += 1;
      else if (end > start) corrupt += 1;
      start = end + 1;
    }
    corrupt += bad;
    if (bad > 0) damaged.push({ file, reason: `${bad} damaged lines` });
  }
  return { lines, corrupt, damaged };
}

/** The journal line between these offsets, or undefined (a line longer than V8's longest string is damaged). */
function lineAt(bytes: Buffer, start: number, end: number): JournalLine | undefined {
  try {
    return parseLine(bytes.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}
