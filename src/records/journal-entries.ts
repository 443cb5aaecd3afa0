import { z } from 'zod';
import { nanoToUsd } from '../accounting/compute-cost.js';
import { type GenerationRecord, recordJson } from './generation-record.js';
import { generationRecordSchema } from './generation-record-schema.js';

/**
 * What the journal knows of a request the moment it is accepted: enough to write an `interrupted` record if
 * the process dies before the request finishes.
 */
export interface InterruptedRecordStub {
  genId: string;
  orgId: string;
  apiKeyId: string;
  /** Model slug asked for ('' when not known yet). */
  model: string;
  /** Endpoint path, e.g. `/v1/chat/completions`. */
  path: string;
  /** ISO-8601, as the finished record will carry it. */
  createdAt: string;
  streamed: boolean;
  /** Worst case reserved against the monthly cap, nano-USD (0 when nothing was reserved). */
  reservedNanoUsd: number;
}

/** What is known so far of a request that has not finished (for streams: tokens and cost up to now). */
export interface RecordProgress {
  model?: string;
  provider?: string;
  streamed?: boolean;
  /** HTTP status already sent to the client (a stream's 200), if any. */
  httpStatus?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** Cost so far, nano-USD (the prompt's as soon as it is known, then growing with the stream). */
  costNanoUsd?: number;
  /** Worst case reserved against the monthly cap, nano-USD, once reserved (the stub is written before). */
  reservedNanoUsd?: number;
}

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const stubSchema: z.ZodType<InterruptedRecordStub> = z.object({
  genId: z.string(),
  orgId: z.string(),
  apiKeyId: z.string(),
  model: z.string(),
  path: z.string(),
  createdAt: z.string(),
  streamed: z.boolean(),
  reservedNanoUsd: count,
});

const progressSchema = z.object({
  genId: z.string(),
  /** When this progress was written, ISO-8601: the last moment the request was known to be running. */
  at: z.string(),
  model: z.string().optional(),
  provider: z.string().optional(),
  streamed: z.boolean().optional(),
  httpStatus: z.number().int().optional(),
  inputTokens: count.optional(),
  outputTokens: count.optional(),
  costNanoUsd: count.optional(),
  reservedNanoUsd: count.optional(),
});
export type ProgressEntry = z.infer<typeof progressSchema>;

/** One line of the journal: a request began (`b`), made progress (`p`) or finished with its record (`f`). */
const lineSchema = z.union([
  z.object({ b: stubSchema }),
  z.object({ p: progressSchema }),
  z.object({ f: generationRecordSchema }),
]);
export type JournalLine = z.infer<typeof lineSchema>;

export const beginLine = (stub: InterruptedRecordStub): string => `${JSON.stringify({ b: stub })}\n`;
export const progressLine = (entry: ProgressEntry): string => `${JSON.stringify({ p: entry })}\n`;
export const finishLine = (record: GenerationRecord): string => `{"f":${recordJson(record)}}\n`;

/** A journal line, or undefined when it is not one (a line cut by a crash, or damaged). */
export function parseLine(text: string): JournalLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = lineSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The record of a request the process did not live to finish: what was known, status `interrupted`. */
export function interruptedRecord(stub: InterruptedRecordStub, progress?: ProgressEntry): GenerationRecord {
  const cost = progress?.costNanoUsd ?? 0;
  const lastSeen = Date.parse(progress?.at ?? stub.createdAt) - Date.parse(stub.createdAt);
  return {
    genId: stub.genId,
    orgId: stub.orgId,
    apiKeyId: stub.apiKeyId,
    model: progress?.model ?? stub.model,
    provider: progress?.provider ?? '',
    path: stub.path,
    status: 'interrupted',
    httpStatus: progress?.httpStatus ?? 0,
    errorCode: 'interrupted',
    errorMessage:
      'The gateway process ended before this request finished; tokens and cost are as far as known.',
    streamed: progress?.streamed ?? stub.streamed,
    totalDurationMs: Number.isFinite(lastSeen) ? Math.max(0, lastSeen) : 0,
    durationMsToFirstToken: 0,
    createdAt: stub.createdAt,
    reqCost: nanoToUsd(cost),
    costNanoUsd: cost,
    inputTokens: progress?.inputTokens ?? 0,
    outputTokens: progress?.outputTokens ?? 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    planningInputTokens: 0,
    planningOutputTokens: 0,
    planningCost: 0,
    loadedTools: '',
    routingCost: 0,
    optimizationPercentage: 0,
    score: 0,
    skills: '',
    tag: '',
    planningStatus: 'none',
    attempts: [],
    warnings: [
      `interrupted: ${progress?.reservedNanoUsd ?? stub.reservedNanoUsd} nano-USD had been reserved for this request`,
    ],
    cached: false,
    costSavedNanoUsd: 0,
  };
}

/**
 * The records a set of journal lines stands for, in order: each finished record, and an `interrupted` record
 * for each request that began and never finished. Repeated lines (a request re-written into a newer
 * segment, a record journaled twice) count once.
 */
export function recordsOfLines(lines: Iterable<JournalLine>): GenerationRecord[] {
  const finished = new Map<string, GenerationRecord>();
  const begun = new Map<string, { stub: InterruptedRecordStub; progress?: ProgressEntry }>();
  for (const line of lines) {
    if ('f' in line) {
      finished.set(line.f.genId, line.f);
      begun.delete(line.f.genId);
    } else if ('b' in line) {
      if (!finished.has(line.b.genId) && !begun.has(line.b.genId)) begun.set(line.b.genId, { stub: line.b });
    } else {
      const entry = begun.get(line.p.genId);
      if (entry) entry.progress = { ...entry.progress, ...line.p };
    }
  }
  const interrupted = [...begun.values()].map(({ stub, progress }) => interruptedRecord(stub, progress));
  return [...finished.values(), ...interrupted];
}
