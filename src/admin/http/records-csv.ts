import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { GenerationRecord } from '../../records/generation-record.js';

/** The columns of a records export, in order: names as in the generation record. */
export const CSV_COLUMNS = [
  'genId',
  'createdAt',
  'orgId',
  'apiKeyId',
  'model',
  'provider',
  'path',
  'status',
  'httpStatus',
  'streamed',
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'reasoningTokens',
  'costNanoUsd',
  'totalDurationMs',
  'durationMsToFirstToken',
  'errorCode',
  'errorMessage',
  'tag',
  'skills',
  // Last, so that the columns before them keep their places: a hit costs 0, and only these tell it apart.
  'cached',
  'costSavedNanoUsd',
] as const satisfies readonly (keyof GenerationRecord)[];

/** Characters that make a spreadsheet read a cell as a formula (or a command, with tab and CR first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled. Text that a
 * spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) is prefixed with `'`, so that an
 * exported record (a model name, an error message) can never execute in the operator's spreadsheet.
 * Numbers and booleans are written as they are.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record as a CSV line (CRLF-terminated). */
export function csvLine(record: GenerationRecord): string {
  return `${CSV_COLUMNS.map((column) => csvCell(record[column])).join(',')}\r\n`;
}

/**
 * Streams records as CSV: a header row, then one line per record, written as the client reads (a write that
 * fills the socket's buffer waits for `drain`, so a slow client never makes the gateway hold more than a page).
 * The first record is read before the answer starts, so that a bad query still gets a JSON error. A client
 * that goes away stops the export.
 */
export async function sendRecordsCsv(
  res: ServerResponse,
  headers: Record<string, string>,
  records: AsyncIterable<GenerationRecord>,
  signal: AbortSignal,
): Promise<void> {
  const iterator = records[Symbol.asyncIterator]();
  let next = await iterator.next();
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': 'attachment; filename="records.csv"',
  });
  res.write(`${CSV_COLUMNS.join(',')}\r\n`);
  while (!next.done) {
    if (signal.aborted) {
      await iterator.return?.();
      return;
    }
    if (!res.write(csvLine(next.value))) await once(res, 'drain', { signal });
    next = await iterator.next();
  }
  res.end();
}
