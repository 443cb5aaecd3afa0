import { z } from 'zod';
import { normalizeCapUsd } from '../accounting/usd-amount.js';
import { isConfigKeyName } from '../auth/api-keys.js';
import { MAX_CACHE_TTL_SECONDS } from '../config/config-schema.js';
import { SKILL_ID } from '../skills/skill.js';

/**
 * The bodies and query strings of the admin API (and of the admin command line, which builds the same
 * objects): validated here, once, with zod. Unknown members are refused; every number and list is bounded.
 * The OpenAPI document is generated from these schemas.
 */

/** Organization ids: the config's slug rule, at most 128 characters. */
export const ORG_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Requests per minute at most (about 16 million per second): beyond it a limit means nothing. */
export const MAX_RPM = 1_000_000_000;
/** Entries of a key's model list, and the length of each. */
export const MAX_KEY_MODELS = 100;
export const MAX_MODEL_PATTERN_CHARS = 200;
export const MAX_NAME_CHARS = 200;

/** A monthly cap in USD in any decimal form (25, "25.10", 0.0000005, "1e-7"), kept as a plain decimal string. */
export const capUsdSchema = z
  .union([z.number(), z.string().max(64)])
  .transform((value, context) => {
    // refused, not trimmed: a cap is kept as written, and " 5 " is not how a number is written
    if (typeof value === 'string' && value.trim() !== value) {
      context.issues.push({ code: 'custom', input: value, message: 'must have no space around the number' });
      return z.NEVER;
    }
    try {
      return normalizeCapUsd(value);
    } catch (error) {
      context.issues.push({ code: 'custom', input: value, message: (error as Error).message });
      return z.NEVER;
    }
  })
  .meta({ description: 'USD per calendar month (UTC), any decimal form; returned as a decimal string' });

export const rateLimitSchema = z.strictObject({
  requestsPerMinute: z.number().int().min(1).max(MAX_RPM),
});

/** The organization's response cache: on with this TTL; null turns it off. */
export const orgCacheSchema = z
  .strictObject({ ttlSeconds: z.number().int().min(1).max(MAX_CACHE_TTL_SECONDS) })
  .nullable()
  .meta({ description: 'response cache on, answers served for ttlSeconds (1..2592000); null = off' });

/** U+0000, which no id, name or filter holds (PostgreSQL cannot store it): refused with 400, not a 500. */
const noNul = (text: string) => !text.includes('\u0000');
const NO_NUL_MESSAGE = 'must not contain U+0000';

const nameSchema = z.string().min(1).max(MAX_NAME_CHARS).refine(noNul, NO_NUL_MESSAGE);
/** A key's name: `config key N` names only the config file's keys, which the config manages. */
const keyNameSchema = nameSchema.refine(
  (name) => !isConfigKeyName(name),
  'names "config key N" are kept for the keys of the config file',
);

const modelPattern = z
  .string()
  .min(1)
  .max(MAX_MODEL_PATTERN_CHARS)
  .regex(/^[^\s]+$/, 'must have no spaces')
  .refine(noNul, NO_NUL_MESSAGE)
  .meta({
    description: 'a model id (acme/chat-large) or a glob where * stands for any characters (openai/*)',
  });

/**
 * An instant in ISO-8601 with a zone (`2027-01-01T00:00:00Z`), returned normalised to UTC milliseconds. Its
 * year must stay within 0000..9999 in UTC: `9999-12-31T23:59:59-23:59` is in year 10000 there, which
 * `toISOString` writes as `+010000-…`, a form no ISO-8601 reader of four-digit years (nor this schema) takes.
 */
const instantSchema = z.iso
  .datetime({ offset: true })
  .transform((text, context) => {
    const utc = new Date(text).toISOString();
    if (/^\d{4}-/.test(utc)) return utc;
    context.issues.push({
      code: 'custom',
      input: text,
      message: 'must lie within the years 0000 to 9999 in UTC',
    });
    return z.NEVER;
  })
  .meta({ description: 'ISO-8601 instant with a time zone' });

export const createOrganizationSchema = z.strictObject({
  id: z
    .string()
    .regex(ORG_ID, 'must be letters, digits, ".", "_" or "-" (max 128), starting with a letter or digit'),
  name: nameSchema.optional(),
  monthlyLimit: capUsdSchema.optional(),
  rateLimit: rateLimitSchema.optional(),
  cache: orgCacheSchema.optional(),
});

/** A change of an organization: an absent member keeps its value, null clears it. */
export const updateOrganizationSchema = z.strictObject({
  name: nameSchema.optional(),
  monthlyLimit: capUsdSchema.nullable().optional(),
  rateLimit: rateLimitSchema.nullable().optional(),
  cache: orgCacheSchema.optional(),
});

export const createKeySchema = z.strictObject({
  name: keyNameSchema.optional(),
  monthlyLimit: capUsdSchema.optional(),
  rateLimit: rateLimitSchema.optional(),
  models: z.array(modelPattern).max(MAX_KEY_MODELS).optional(),
  expiresAt: instantSchema.optional(),
});

/** A change of a key's name or limits: an absent member keeps its value, null clears it. */
export const updateKeySchema = z.strictObject({
  name: keyNameSchema.optional(),
  monthlyLimit: capUsdSchema.nullable().optional(),
  rateLimit: rateLimitSchema.nullable().optional(),
  models: z.array(modelPattern).max(MAX_KEY_MODELS).nullable().optional(),
  expiresAt: instantSchema.nullable().optional(),
});

/** Files of a skill folder: at most this many, each path at most this deep. */
export const MAX_SKILL_FILES = 100;
const SKILL_PATH = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+){0,7}$/;

/**
 * The first path of a skill's file set that another path uses as a folder (`a` beside `a/b`, `SKILL.md`
 * beside `SKILL.md/x`): a folder cannot hold both, so such a set is refused before anything is written.
 */
function fileUsedAsFolder(paths: readonly string[]): string | undefined {
  const folders = new Set<string>();
  for (const path of paths) {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      folders.add(path.slice(0, slash));
    }
  }
  return paths.find((path) => folders.has(path));
}

export const addSkillSchema = z.strictObject({
  id: z.string().regex(SKILL_ID, 'must be 1-64 lowercase letters, digits and single hyphens'),
  files: z
    .record(
      z.string().max(256).regex(SKILL_PATH, 'must be a relative path without "." or ".." parts'),
      z.string(),
    )
    .refine((files) => Object.keys(files).length <= MAX_SKILL_FILES, `at most ${MAX_SKILL_FILES} files`)
    .refine((files) => 'SKILL.md' in files, 'must hold SKILL.md')
    .superRefine((files, context) => {
      const clash = fileUsedAsFolder(Object.keys(files));
      if (clash === undefined) return;
      const message = `"${clash}" is a file and also a folder of another path`;
      context.issues.push({ code: 'custom', input: files, message });
    })
    .meta({ description: 'the skill folder: relative path → UTF-8 text; SKILL.md is required' }),
  replace: z.boolean().optional(),
});

/**
 * A page size: a number (the command line's) or decimal digits (a query string's). `z.coerce` read any
 * string `Number` takes, so `0x10` was 16 and `1e2` 100.
 */
const limitParam = z
  .preprocess(
    (value) => (typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value),
    z.number({ error: 'must be a whole number from 1 to 1000' }).int().min(1).max(1000),
  )
  .optional();
const cursorParam = z.string().min(1).max(512).refine(noNul, NO_NUL_MESSAGE).optional();

export const pageQuerySchema = z.strictObject({ limit: limitParam, cursor: cursorParam });

const filterParam = z.string().min(1).max(256).refine(noNul, NO_NUL_MESSAGE).optional();
const timeParam = z.iso.datetime({ offset: true }).optional();

export const recordsQuerySchema = z.strictObject({
  org: filterParam,
  key: filterParam,
  model: filterParam,
  provider: filterParam,
  status: z.enum(['success', 'error', 'cancelled', 'interrupted']).optional(),
  from: timeParam,
  to: timeParam,
  limit: limitParam,
  cursor: cursorParam,
});

export const spendQuerySchema = z.strictObject({
  org: filterParam,
  key: filterParam,
  model: filterParam,
  provider: filterParam,
  from: timeParam,
  to: timeParam,
  group_by: z.enum(['day', 'model', 'key', 'provider']).default('day'),
});

export type CreateOrganization = z.infer<typeof createOrganizationSchema>;
export type UpdateOrganization = z.infer<typeof updateOrganizationSchema>;
export type CreateKey = z.infer<typeof createKeySchema>;
export type UpdateKey = z.infer<typeof updateKeySchema>;
export type AddSkill = z.infer<typeof addSkillSchema>;
export type RecordsQuery = z.infer<typeof recordsQuerySchema>;
export type SpendQuery = z.infer<typeof spendQuerySchema>;
