import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { generationRecordSchema } from '../records/generation-record-schema.js';

/**
 * A `records` row's `body`: every field of its record that no column holds, each left out while it has its
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

/** The record's fields its row's columns hold (record-columns.ts); `createdAt` only to the millisecond. */
const IN_COLUMNS = new Set([
  'genId',
  'orgId',
  'apiKeyId',
  'model',
  'provider',
  'path',
  'status',
  'httpStatus',
  'streamed',
  'totalDurationMs',
  'durationMsToFirstToken',
  'costNanoUsd',
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'reasoningTokens',
  'tag',
  'score',
  'planningStatus',
]);

function isUsual(name: string, value: unknown): boolean {
  if (EMPTY_LISTS.has(name)) return Array.isArray(value) && value.length === 0;
  return name in USUAL && USUAL[name as keyof typeof USUAL] === value;
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

/**
 * The columns a stored record is read from, under the names the stores select them as: `created_ms` is the
 * creation time in epoch milliseconds.
 */
export const storedRecordRow = z.object({
  gen_id: z.string(),
  org_id: z.string(),
  key_id: z.string(),
  model: z.string(),
  provider: z.string(),
  path: z.string(),
  status: z.string(),
  http_status: integer,
  streamed: flag,
  input_tokens: integer,
  output_tokens: integer,
  cached_input_tokens: integer,
  reasoning_tokens: integer,
  cost_nano: integer,
  total_duration_ms: z.number(),
  first_token_ms: z.number(),
  created_ms: integer,
  tag: z.string(),
  score: z.number(),
  planning_status: z.string(),
  body: z.string(),
});
export type StoredRecordRow = z.infer<typeof storedRecordRow>;

/** The select list of storedRecordRow's columns, with the creation time as each store writes it in ms. */
export function storedRecordColumns(createdMs: string): string {
  return `gen_id, org_id, key_id, model, provider, path, status, http_status, streamed, input_tokens,
    output_tokens, cached_input_tokens, reasoning_tokens, cost_nano, total_duration_ms, first_token_ms,
    ${createdMs} AS created_ms, tag, score, planning_status, body`;
}

/** The record a row stands for; throws (a zod error) for a row no record could have written. */
export function storedRecord(raw: unknown): GenerationRecord {
  return recordOfRow(storedRecordRow.parse(raw));
}

/** The record of a row already checked against storedRecordRow. */
export function recordOfRow(row: StoredRecordRow): GenerationRecord {
  const body: Record<string, unknown> = JSON.parse(row.body);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Error(`record ${row.gen_id}: its stored body is not a JSON object`);
  }
  if ('genId' in body) return generationRecordSchema.parse(body);
  // The schema gives the fields back in the record's own order.
  return generationRecordSchema.parse({
    ...USUAL,
    attempts: [],
    warnings: [],
    createdAt: new Date(row.created_ms).toISOString(),
    ...body,
    genId: row.gen_id,
    orgId: row.org_id,
    apiKeyId: row.key_id,
    model: row.model,
    provider: row.provider,
    path: row.path,
    status: row.status,
    httpStatus: row.http_status,
    streamed: row.streamed,
    totalDurationMs: row.total_duration_ms,
    durationMsToFirstToken: row.first_token_ms,
    costNanoUsd: row.cost_nano,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedInputTokens: row.cached_input_tokens,
    reasoningTokens: row.reasoning_tokens,
    score: row.score,
    tag: row.tag,
    planningStatus: row.planning_status,
  });
}
