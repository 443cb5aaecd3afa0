import { z } from 'zod';
import { invalidGatewaySettings } from '../errors/gateway-error.js';
import { isRecord } from '../json/json.js';

/**
 * The `gateway` object of chat and Responses requests (spec "Gateway configuration object"), validated once
 * at the edge. Strict: an unknown member is an error naming it. `chatHistoryOptimization` is accepted as an
 * alias of `chatHistoryCompression`.
 */
const score = z.number().min(0, 'must be at least 0').max(1, 'must be at most 1');
const stringList = z.array(z.string().min(1));

/**
 * Bounds of a list of provider ids (`order`, `only`, and the `provider` object's lists): errors about them
 * quote the lists and ids, and a gateway has a handful of providers.
 */
export const MAX_PROVIDER_IDS = 64;
export const MAX_PROVIDER_ID_CHARS = 200;
export const providerIdList = z
  .array(z.string().min(1).max(MAX_PROVIDER_ID_CHARS, `must be at most ${MAX_PROVIDER_ID_CHARS} characters`))
  .max(MAX_PROVIDER_IDS, `must name at most ${MAX_PROVIDER_IDS} providers`);

/**
 * Bounds of `redact.custom`. The terms become one case-insensitive regex per request: measured (Node 20),
 * 10,000 characters of terms compile in under 0.2 s and scan a megabyte of text in under 0.3 s, in any split
 * (1,000 terms of 10, 10 of 1,000); 1,000 terms of 1,000 characters took 7 s to compile and scan, and one
 * term of 20,000 is past what V8 compiles at all (a 500 before these bounds). A list of names or codenames
 * needs far less.
 */
export const MAX_CUSTOM_TERMS = 1_000;
export const MAX_CUSTOM_TERM_CHARS = 1_000;
export const MAX_CUSTOM_TERMS_TOTAL_CHARS = 10_000;

/** The custom terms, bounded; a problem names the list (a term's own text is never echoed: it is secret). */
const customTerms = z
  .array(z.string().min(1))
  .max(MAX_CUSTOM_TERMS, `must hold at most ${MAX_CUSTOM_TERMS} terms`)
  .superRefine((terms, context) => {
    const long = terms.findIndex((term) => term.length > MAX_CUSTOM_TERM_CHARS);
    const total = terms.reduce((sum, term) => sum + term.length, 0);
    const message =
      long !== -1
        ? `term ${long} is longer than ${MAX_CUSTOM_TERM_CHARS} characters`
        : total > MAX_CUSTOM_TERMS_TOTAL_CHARS
          ? `the terms hold more than ${MAX_CUSTOM_TERMS_TOTAL_CHARS} characters in all`
          : undefined;
    if (message !== undefined) context.issues.push({ code: 'custom', input: terms, message });
  });

/**
 * Bounds of `tags`. Every tag's description is judged against the prompt on every request: 20,000 tags took
 * 250–440 ms of the event loop per MB of them, and 256 descriptions of 8,000 characters half a second. At
 * these bounds the judgement takes about 35 ms. Intent routing needs a handful of tags of a sentence each.
 */
export const MAX_TAGS = 128;
export const MAX_TAG_DESCRIPTION_CHARS = 1_000;
export const MAX_TAG_MODELS = 32;
/** The name is judged with the description (and kept as the record's `tag`): a label, not a text. */
export const MAX_TAG_NAME_CHARS = 200;

const tagsSchema = z
  .array(
    z.strictObject({
      name: z.string().min(1).max(MAX_TAG_NAME_CHARS, `must be at most ${MAX_TAG_NAME_CHARS} characters`),
      description: z
        .string()
        .min(1)
        .max(MAX_TAG_DESCRIPTION_CHARS, `must be at most ${MAX_TAG_DESCRIPTION_CHARS} characters`),
      models: stringList
        .min(1, 'must list at least one model')
        .max(MAX_TAG_MODELS, `must list at most ${MAX_TAG_MODELS} models`),
    }),
  )
  .max(MAX_TAGS, `must hold at most ${MAX_TAGS} tags`);

const redactSchema = z.strictObject({
  email: z.boolean().optional(),
  phone: z.boolean().optional(),
  ip: z.boolean().optional(),
  uuid: z.boolean().optional(),
  token: z.boolean().optional(),
  credit_card: z.boolean().optional(),
  iban: z.boolean().optional(),
  ssn: z.boolean().optional(),
  mac: z.boolean().optional(),
  custom: customTerms.optional(),
});

const compressionSchema = z.strictObject({
  enabled: z.boolean().default(false),
  score: score.default(0.6),
});

const gatewaySchema = z.strictObject({
  zdr: z.boolean().optional(),
  order: providerIdList.optional(),
  only: providerIdList.optional(),
  planningTriggerScore: score.optional(),
  imageGenerationModel: z.string().min(1).optional(),
  tags: tagsSchema.optional(),
  skills: z
    .strictObject({
      skillIds: stringList,
      enableAutoSearch: z.boolean().default(false),
    })
    .optional(),
  chatHistoryCompression: compressionSchema.optional(),
  chatHistoryOptimization: compressionSchema.optional(),
  mediaOptimization: z.boolean().default(false),
  toolOptimization: z
    .strictObject({
      enabled: z.boolean().default(false),
      acceptScore: score.default(0.5),
      alwaysInclude: stringList.default([]),
    })
    .optional(),
  redact: redactSchema.optional(),
});

export type GatewaySettings = Omit<z.infer<typeof gatewaySchema>, 'chatHistoryOptimization'>;
export type RedactSettings = z.infer<typeof redactSchema>;

/** Settings of a request that carries no `gateway` object. */
export const defaultGatewaySettings: GatewaySettings = { mediaOptimization: false };

/** A member of the `gateway` object. */
export type GatewayMember = keyof z.infer<typeof gatewaySchema>;

/** The members that choose providers: the only ones that make sense for embeddings and images. */
export const PROVIDER_MEMBERS: ReadonlySet<GatewayMember> = new Set(['zdr', 'order', 'only']);

/**
 * Validates the request's `gateway` member; throws 400 INVALID_GATEWAY_SETTINGS naming the bad member. An
 * endpoint that takes only some members (`accepted`) rejects the others by name, rather than ignoring them.
 */
export function parseGatewaySettings(value: unknown, accepted?: ReadonlySet<GatewayMember>): GatewaySettings {
  if (value === undefined || value === null) return defaultGatewaySettings;
  if (!isRecord(value)) throw invalidGatewaySettings('gateway must be an object.', 'gateway');
  if (accepted) {
    const names: ReadonlySet<string> = accepted;
    const member = Object.keys(value).find((key) => key in gatewaySchema.shape && !names.has(key));
    if (member !== undefined) {
      throw invalidGatewaySettings(
        `gateway.${member} does not apply to this endpoint; it takes only ${[...accepted].join(', ')}.`,
        `gateway.${member}`,
      );
    }
  }
  const result = gatewaySchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = ['gateway', ...(issue?.path ?? []).map(String)];
    if (issue?.code === 'unrecognized_keys') {
      const member = [...path, issue.keys[0] ?? ''].join('.');
      throw invalidGatewaySettings(`${member} is not a gateway setting.`, member);
    }
    const member = path.join('.');
    throw invalidGatewaySettings(`${member}: ${issue?.message ?? 'invalid'}`, member);
  }
  const { chatHistoryOptimization, ...settings } = result.data;
  if (chatHistoryOptimization && settings.chatHistoryCompression) {
    throw invalidGatewaySettings(
      'gateway.chatHistoryOptimization is an alias of gateway.chatHistoryCompression; give only one.',
      'gateway.chatHistoryOptimization',
    );
  }
  if (chatHistoryOptimization) settings.chatHistoryCompression = chatHistoryOptimization;
  return settings;
}
