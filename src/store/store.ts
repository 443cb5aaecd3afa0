import type { GenerationRecord } from '../records/generation-record.js';

/**
 * Durable state of the gateway: organizations, API keys (hashes only), generation records and monthly spend.
 * One interface, several implementations (SQLite by default, PostgreSQL when configured), all run against
 * the same contract suite (`store-contract.ts`).
 */
export interface Organization {
  id: string;
  name: string;
  /** USD per calendar month (UTC), decimal string; null = no cap. */
  monthlyLimitUsd: string | null;
  /** Requests per minute per API key; null = no limit. */
  requestsPerMinute: number | null;
  /** Seconds an answer is served from the response cache; null = the cache is off for this organization. */
  cacheTtlSeconds: number | null;
  createdAt: string;
  /**
   * When this organization was created again over a deleted one of its id (its `createdAt` then); absent for
   * one never deleted. Its keys see no record made before it (`getRecord`'s `since`): those are the deleted
   * tenant's. An organization never deleted sets no such bound, so records stamped a little before its
   * `createdAt` (another instance's clock, a journal replayed into a new database) stay its own.
   */
  recreatedAt?: string;
}

/** A key's own limits, on top of its organization's; null = none of its own. */
export interface ApiKeyLimits {
  /** USD per calendar month (UTC) this key may spend, decimal string; null = only the organization's cap. */
  monthlyLimitUsd: string | null;
  /** Requests per minute of this key; null = only the organization's per-key limit. */
  requestsPerMinute: number | null;
  /** Model ids or globs (`openai/*`) the key may use; null = every model. */
  models: string[] | null;
  /** ISO-8601 instant after which the key no longer authenticates; null = never. */
  expiresAt: string | null;
}

export interface ApiKeyInfo extends ApiKeyLimits {
  id: string;
  orgId: string;
  name: string;
  /** First characters of the key, for humans to recognise it; never enough to use it. */
  prefix: string;
  /** Keyed hash of the key (`hmac-sha256:` + hex), or a legacy unkeyed sha256 hex not yet upgraded. */
  keyHash: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface NewOrganization {
  id: string;
  name?: string;
  monthlyLimitUsd?: string | null;
  requestsPerMinute?: number | null;
  cacheTtlSeconds?: number | null;
}

export interface NewApiKey extends Partial<ApiKeyLimits> {
  orgId: string;
  name?: string;
  prefix: string;
  keyHash: string;
}

/** A change of a key: a field left undefined keeps its value, null clears it. */
export interface ApiKeyPatch extends Partial<ApiKeyLimits> {
  name?: string;
}

/** A new secret of a key: what the store keeps of it. */
export interface KeySecretHash {
  prefix: string;
  keyHash: string;
}

/** One admin write, as the audit log keeps it. */
export interface NewAuditEntry {
  /** Who: `admin-token:<fingerprint>`, `admin-cli`, ...; never a secret. */
  actor: string;
  /** What: `organization.create`, `key.rotate`, ... */
  action: string;
  /** On what: `organization:acme`, `key:key_…`, `skill:pdf`. */
  target: string;
  /** The object before and after the write (null when it did not exist / no longer exists). */
  before: unknown;
  after: unknown;
}

export interface AuditEntry extends NewAuditEntry {
  /** Increasing with each write; the cursor of `listAudit`. */
  id: string;
  /** ISO-8601. */
  at: string;
}

/** What `previous_response_id` continues from: the conversation so far as Responses input items. */
export interface ConversationState {
  genId: string;
  orgId: string;
  /**
   * `createdAt` of the organization the request ran for: the state is kept only while that organization is
   * live and has not been created again since (a deleted id created again is another tenant).
   */
  orgCreatedAt: string;
  items: unknown[];
  /** `items` as JSON, when the caller has made it already (to measure it). */
  itemsJson?: string;
  /** ISO-8601; afterwards the state is gone. */
  expiresAt: string;
}

/** Outcome of a recorded request, as `GenerationRecord.status`. */
export type RecordStatus = 'success' | 'error' | 'cancelled' | 'interrupted';

/** Which records a listing or report covers; absent fields do not filter. */
export interface RecordFilter {
  orgId?: string;
  /** API key id (`key_…`). */
  keyId?: string;
  model?: string;
  provider?: string;
  status?: RecordStatus;
  /** ISO-8601, inclusive. */
  from: string;
  /** ISO-8601, exclusive. */
  to: string;
}

/** One page of records, newest first. */
export interface RecordPage {
  records: GenerationRecord[];
  /** Opaque position after the last record of this page; null at the end. */
  nextCursor: string | null;
}

export type SpendGroupBy = 'day' | 'model' | 'key' | 'provider';

/** One group of a spend report: a day (`YYYY-MM-DD`, UTC), a model slug, a key id or a provider id. */
export interface SpendRow {
  group: string;
  requests: number;
  /** Requests with status `error` (cancelled and interrupted ones count as requests only). */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costNanoUsd: number;
}

export interface Store {
  /** Creates tables if needed. Idempotent. */
  migrate(): Promise<void>;
  /**
   * Creates the organization, or updates name/limits/cache of an existing one (a deleted one is re-created
   * from defaults, with a new `createdAt`).
   *
   * An organization created again over a deleted one is a new tenant from its `createdAt` on: its monthly
   * spend (`getMonthlySpend`) counts only records created since then, `getRecord` with `since` and conversations
   * (`saveConversation`) see nothing of an earlier organization of the id. Records and rollups stay: the
   * operator's reports (`listRecords`, `spendReport`) keep showing them under the id.
   */
  upsertOrganization(org: NewOrganization): Promise<Organization>;
  /**
   * Creates the organization, or re-creates a deleted one from defaults; undefined (and nothing written) when
   * a live one has this id. Atomic: of concurrent creates of one id, exactly one succeeds.
   */
  createOrganization(org: NewOrganization): Promise<Organization | undefined>;
  /**
   * Changes name, limits or cache of a live organization (undefined keeps a field, null clears it); undefined
   * when there is none. Atomic: it never revives an organization deleted meanwhile.
   */
  updateOrganization(org: NewOrganization): Promise<Organization | undefined>;
  getOrganization(id: string): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;
  /** Removes the organization; its keys stop working. Returns false when it did not exist. */
  deleteOrganization(id: string): Promise<boolean>;
  /**
   * Removes the organization, revokes every key of it and forgets its conversation state, atomically: a key
   * created concurrently is either refused or revoked, so re-creating the id never brings a key (or a
   * conversation of the deleted tenant) back. Returns false when it did not exist.
   */
  deleteOrganizationAndKeys(id: string): Promise<boolean>;
  /**
   * Adds a key to a live organization; throws OrganizationMissingError when there is none (nothing written),
   * and an error when the hash already exists.
   */
  createApiKey(key: NewApiKey): Promise<ApiKeyInfo>;
  /** A key (revoked or not) by the stored hash of its secret. */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyInfo | undefined>;
  /**
   * Replaces the stored hash of key `id` by `newHash` if it still is `oldHash` (upgrading a legacy hash);
   * returns false when it was not (already replaced, or no such key).
   */
  replaceApiKeyHash(id: string, oldHash: string, newHash: string): Promise<boolean>;
  listApiKeys(orgId?: string): Promise<ApiKeyInfo[]>;
  /** Marks the key revoked. Returns false when no such unrevoked key exists. */
  revokeApiKey(id: string): Promise<boolean>;
  /** A key (revoked or not) by its id. */
  getApiKey(id: string): Promise<ApiKeyInfo | undefined>;
  /** Changes name and limits of a key; undefined when there is no such key. */
  updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyInfo | undefined>;
  /**
   * Gives an unrevoked key a new secret (its hash and prefix), so the old secret stops matching at once;
   * undefined when there is no such unrevoked key.
   */
  rotateApiKey(id: string, secret: KeySecretHash): Promise<ApiKeyInfo | undefined>;
  /** Spend of one key in the month `YYYY-MM` (UTC), integer nano-USD (from its records, like the org's). */
  getKeyMonthlySpend(keyId: string, month: string): Promise<number>;
  /** Appends an entry to the audit log of admin writes. */
  appendAudit(entry: NewAuditEntry): Promise<AuditEntry>;
  /** Audit entries newest first: at most `limit`, only those older than the entry `before` when given. */
  listAudit(page: { limit: number; before?: string }): Promise<AuditEntry[]>;
  /**
   * Writes a batch of records in one transaction and adds each record's `costNanoUsd` to its organization's
   * (unless the organization was created again, over a deleted one, after the record) and its API key's spend for the record's calendar month (UTC, from `createdAt`), and the record to its
   * daily rollup (organization × key × model × provider × UTC day). A record whose `genId` and `createdAt` are
   * already stored is skipped and counted nowhere, so a retried batch is harmless; of several records with one
   * `genId` in a batch, the first is kept.
   */
  insertRecords(records: GenerationRecord[]): Promise<void>;
  /**
   * A record of this organization, or undefined (also when it belongs to another organization). With `since`
   * (ISO-8601: the organization's `recreatedAt`, for its own keys) only a record created at or after it: one
   * of an earlier organization of the id is undefined too.
   */
  getRecord(genId: string, orgId: string, since?: string): Promise<GenerationRecord | undefined>;
  /**
   * Records matching `filter`, newest first (`createdAt` descending, `genId` descending among equal times).
   * `page.limit` is 1..1000; `page.cursor` is a previous page's `nextCursor`, a keyset position (not an
   * offset), so records inserted meanwhile never shift or repeat a page. The filter applies on every page, so a
   * cursor never reaches another organization's records. Throws InvalidQueryError for a malformed cursor,
   * a time that is not a date, or a limit out of range.
   */
  listRecords(filter: RecordFilter, page: { limit: number; cursor?: string }): Promise<RecordPage>;
  /**
   * Requests, errors, tokens and cost per group, from the daily rollups (never the raw records, which
   * retention may have pruned). Covers the whole UTC days that overlap [from, to); sorted by group.
   */
  spendReport(filter: Omit<RecordFilter, 'status'>, groupBy: SpendGroupBy): Promise<SpendRow[]>;
  /** Deletes the records created before `before` (ISO-8601), in bounded steps; rollups stay. Returns how many. */
  pruneRecords(before: string): Promise<number>;
  /**
   * Spend of the organization in the month `YYYY-MM` (UTC), integer nano-USD. Of an organization created again
   * over a deleted one, only what records created since count (the earlier ones are the deleted tenant's).
   */
  getMonthlySpend(orgId: string, month: string): Promise<number>;
  /**
   * Keeps the conversation state of a Responses answer, for a later `previous_response_id` (operator opt-in:
   * this is prompt and completion text), unless its organization was deleted or created again since the request
   * began (`orgCreatedAt`): then nothing is kept. Also drops expired states.
   */
  saveConversation(state: ConversationState): Promise<void>;
  /** The items of a state of this organization that has not expired, or undefined. */
  getConversation(genId: string, orgId: string): Promise<unknown[] | undefined>;
  /** Resolves when the database answers a trivial query; rejects otherwise (readiness checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
