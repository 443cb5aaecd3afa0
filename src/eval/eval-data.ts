import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The labelled evaluation set under `eval/` (one JSON file per judgement), parsed and checked once at the
 * boundary: shapes, unique ids, catalog and tag-set references, indices in range.
 */

const id = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'ids are kebab-case');
const note = z.string().optional();
const text = z.string().min(1);

const relevanceFile = z.object({
  catalogs: z.record(z.string(), z.array(text).min(1)),
  cases: z.array(
    z.object({ id, query: text, catalog: z.string(), relevant: z.array(z.number().int().min(0)), note }),
  ),
});

const dependenceFile = z.object({
  cases: z.array(
    z.object({ id, earlier: z.array(text).min(1), latest: text, label: z.enum(['high', 'low']), note }),
  ),
});

const complexityFile = z.object({
  cases: z.array(z.object({ id, prompt: text, label: z.enum(['low', 'medium', 'high']), note })),
});

const imageIntentFile = z.object({
  cases: z.array(z.object({ id, prompt: text, expected: z.boolean(), note })),
});

const tagSchema = z.object({ name: z.string().min(1), description: text });
const tagFile = z.object({
  tagSets: z.record(z.string(), z.array(tagSchema).min(1)),
  cases: z.array(z.object({ id, prompt: text, tagSet: z.string(), expected: z.string().nullable(), note })),
});

export interface RelevanceCase {
  id: string;
  query: string;
  documents: string[];
  relevant: number[];
}
export type DependenceCase = z.infer<typeof dependenceFile>['cases'][number];
export type ComplexityCase = z.infer<typeof complexityFile>['cases'][number];
export type ComplexityLabel = ComplexityCase['label'];
export type ImageIntentCase = z.infer<typeof imageIntentFile>['cases'][number];
export interface TagCase {
  id: string;
  prompt: string;
  tags: z.infer<typeof tagSchema>[];
  expected: string | null;
}

export interface EvalData {
  relevance: RelevanceCase[];
  contextDependence: DependenceCase[];
  complexity: ComplexityCase[];
  imageIntent: ImageIntentCase[];
  tagIntent: TagCase[];
}

/** The files, by judgement. */
export const EVAL_FILES = {
  relevance: 'relevance.json',
  contextDependence: 'context-dependence.json',
  complexity: 'complexity.json',
  imageIntent: 'image-intent.json',
  tagIntent: 'tag-intent.json',
} as const;

/**
 * The second held-out complexity set, beside the held-out `complexity.json`: written and committed before
 * the second round of tuning of the complexity judgement, and never tuned on.
 */
export const SECOND_COMPLEXITY_FILE = 'complexity-2.json';

/**
 * The repository's `eval/` folder: two levels above this file (`src/eval/` in tests, `dist/eval/` once
 * compiled), else under the working directory.
 */
export function findEvalDir(): string {
  const besideCode = fileURLToPath(new URL('../../eval/', import.meta.url));
  return existsSync(besideCode) ? besideCode : resolve(process.cwd(), 'eval');
}

function readJson<Schema extends z.ZodType>(dir: string, file: string, schema: Schema): z.infer<Schema> {
  const parsed = schema.safeParse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function assertUniqueIds(file: string, cases: ReadonlyArray<{ id: string }>): void {
  const seen = new Set<string>();
  for (const { id: caseId } of cases) {
    if (seen.has(caseId)) throw new Error(`${file}: duplicate id ${caseId}`);
    seen.add(caseId);
  }
}

function loadRelevance(dir: string): RelevanceCase[] {
  const file = readJson(dir, EVAL_FILES.relevance, relevanceFile);
  return file.cases.map((entry) => {
    const documents = file.catalogs[entry.catalog];
    if (!documents) throw new Error(`${EVAL_FILES.relevance}: ${entry.id}: unknown catalog ${entry.catalog}`);
    if (entry.relevant.some((index) => index >= documents.length)) {
      throw new Error(`${EVAL_FILES.relevance}: ${entry.id}: relevant index out of range`);
    }
    return { id: entry.id, query: entry.query, documents, relevant: entry.relevant };
  });
}

function loadTags(dir: string): TagCase[] {
  const file = readJson(dir, EVAL_FILES.tagIntent, tagFile);
  return file.cases.map((entry) => {
    const tags = file.tagSets[entry.tagSet];
    if (!tags) throw new Error(`${EVAL_FILES.tagIntent}: ${entry.id}: unknown tag set ${entry.tagSet}`);
    if (entry.expected !== null && !tags.some((tag) => tag.name === entry.expected)) {
      throw new Error(`${EVAL_FILES.tagIntent}: ${entry.id}: ${entry.expected} is not in ${entry.tagSet}`);
    }
    return { id: entry.id, prompt: entry.prompt, tags, expected: entry.expected };
  });
}

/** Reads and validates one complexity file (shape and unique ids), e.g. `SECOND_COMPLEXITY_FILE`. */
export function loadComplexityCases(dir: string, file: string): ComplexityCase[] {
  const cases = readJson(dir, file, complexityFile).cases;
  assertUniqueIds(file, cases);
  return cases;
}

/** Reads and validates every file; throws with the file and case at fault. */
export function loadEvalData(dir: string = findEvalDir()): EvalData {
  const data: EvalData = {
    relevance: loadRelevance(dir),
    contextDependence: readJson(dir, EVAL_FILES.contextDependence, dependenceFile).cases,
    complexity: readJson(dir, EVAL_FILES.complexity, complexityFile).cases,
    imageIntent: readJson(dir, EVAL_FILES.imageIntent, imageIntentFile).cases,
    tagIntent: loadTags(dir),
  };
  for (const [judgement, cases] of Object.entries(data)) {
    assertUniqueIds(EVAL_FILES[judgement as keyof EvalData], cases);
  }
  return data;
}
