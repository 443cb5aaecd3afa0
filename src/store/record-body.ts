import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { generationRecordSchema } from '../records/generation-record-schema.js';
import { RECORD_COLUMNS, type RecordColumn, type RecordRow } from './record-columns.js';
import { createdMsOf, recordDayOf } from './record-query.js';
import { checkInsertableCost } from './store-rows.js';

/**
 * A record as a `records` row and back. The row's columns (record-columns.ts) hold some fields; its `body`,
 * JSON, holds every field of its record that no column holds, each left out while it has its
 * usual value (below), so a typical row's body is its cost in USD and its attempts (about 120 bytes where the
 * whole record is 770). A field added to records later lands in the body without a change here. Columns and
 * body together give the record back field for field. A body that holds `genId` is a whole record, written
 * before bodies were cut down, and is read as it is.
 */
const USUAL = {
  errorCode: null,
  errorMessage: null,
  reqCost: 0,
  planningInputTokens: 0,
  planningOutputTokens: 0,
  planningCost: 0,
  loadedTools: '',
  routingCost: 0,
  optimizationPercentage: 0,
  skills: '',
  cached: false,
  costSavedNanoUsd: 0,
} as const;

/** Lists left out while empty. */
const EMPTY_LISTS = new Set(['attempts', 'warnings']);

/** Columns that hold a record field, and the fields they hold but `createdAt` (its column keeps milliseconds). */
const FIELD_COLUMNS = RECORD_COLUMNS.filter((column) => column.field !== undefined);
const IN_COLUMNS = new Set<string>(
  FIELD_COLUMNS.flatMap((column) =>
    column.field === undefined || column.field === 'createdAt' ? [] : [column.field],
  ),
);

function isUsual(name: string, value: unknown): boolean {
  if (EMPTY_LISTS.has(name)) return Array.isArray(value) && value.length === 0;
  return name in USUAL && USUAL[name as keyof typeof USUAL] === value;
}

/** Checks a record and derives its row; throws InvalidRecordError for a cost or time no store can hold. */
export function recordRow(record: GenerationRecord): RecordRow {
  checkInsertableCost(record);
  const createdMs = createdMsOf(record);
  const day = recordDayOf(createdMs);
  return { record, createdMs, month: day.slice(0, 7), day, body: recordBody(record, createdMs) };
}

/** The body of a record's row; `createdMs` is its `created_at` column (createdAt is kept when that loses it). */
export function recordBody(record: GenerationRecord, createdMs: number): string {
  const body: Record<string, unknown> = {};
  if (new Date(createdMs).toISOString() !== record.createdAt) body.createdAt = record.createdAt;
  const fields: Record<string, unknown> = record as unknown as Record<string, unknown>;
  for (const name in fields) {
    const value = fields[name];
    if (name === 'createdAt' || IN_COLUMNS.has(name) || value === undefined || isUsual(name, value)) continue;
    body[name] = value;
  }
  return JSON.stringify(body);
}

/** node-postgres returns BIGINT as decimal text; SQLite gives numbers. */
const integer = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);
/** SQLite keeps booleans as 0 and 1. */
const flag = z.union([z.boolean(), z.number().transform((n) => n !== 0)]);
const COLUMN_VALUE = {
  text: z.string(),
  bigint: integer,
  'double precision': z.number(),
  boolean: flag,
} as const;

/** The name a column is selected as: the creation time as epoch milliseconds, whatever the store keeps. */
const selectedName = (column: RecordColumn) => (column.name === 'created_at' ? 'created_ms' : column.name);

/** A row as the stores select it (storedRecordColumns), every column checked against its type. */
export interface StoredRecordRow {
  readonly gen_id: string;
  /** The creation time, epoch milliseconds. */
  readonly created_ms: number;
  readonly body: string;
  readonly [column: string]: string | number | boolean;
}

const storedRowSchema = z.object(
  Object.fromEntries(RECORD_COLUMNS.map((column) => [selectedName(column), COLUMN_VALUE[column.pgType]])),
);

/** Checks a row the store returned; throws (a zod error) for one no record could have written. */
export function storedRecordRow(raw: unknown): StoredRecordRow {
  // Every column is checked by its type, `gen_id` and `body` as text and `created_ms` as an integer among them.
  return storedRowSchema.parse(raw) as StoredRecordRow;
}

/** The select list of every column, with `createdMs` the SQL of the creation time in epoch milliseconds. */
export function storedRecordColumns(createdMs: string): string {
  return RECORD_COLUMNS.map((c) => (c.name === 'created_at' ? `${createdMs} AS created_ms` : c.name)).join(
    ', ',
  );
}

/** The record a row stands for; throws (a zod error) for a row no record could have written. */
export function storedRecord(raw: unknown): GenerationRecord {
  return recordOfRow(storedRecordRow(raw));
}

/** The record of a row already checked against storedRecordRow. */
export function recordOfRow(row: StoredRecordRow): GenerationRecord {
  const body: Record<string, unknown> = JSON.parse(row.body);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Error(`record ${row.gen_id}: its stored body is not a JSON object`);
  }
  if ('genId' in body) return generationRecordSchema.parse(body);
  const fields: Record<string, unknown> = {
    ...USUAL,
    ...Object.fromEntries([...EMPTY_LISTS].map((name) => [name, []])),
    createdAt: new Date(row.created_ms).toISOString(),
    ...body,
  };
  // What a column holds wins over the body.
  for (const column of FIELD_COLUMNS) {
    if (column.field !== 'createdAt') fields[column.field as string] = row[selectedName(column)];
  }
  // The schema checks the whole and gives the fields back in the record's own order.
  return generationRecordSchema.parse(fields);
}
