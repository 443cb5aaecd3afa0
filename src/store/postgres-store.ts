import { randomBytes } from 'node:crypto';
import { DatabaseError } from 'pg';
import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { postgresAdminTables } from './postgres-admin-tables.js';
import { PostgresConnection, type Row } from './postgres-connection.js';
import { ORG_COLUMNS, postgresOrganizations } from './postgres-organizations.js';
import {
  ensurePartitions,
  insertRecordRows,
  listRecordRows,
  pruneRecordRows,
  STORED_RECORD_COLUMNS,
  spendReportRows,
} from './postgres-records.js';
import { holdsNul, refusingNul } from './postgres-refusals.js';
import { migratePostgres, nextMonth } from './postgres-schema.js';
import { storedRecord } from './record-body.js';
import { type RecordRow, recordRow } from './record-columns.js';
import { checkFilter } from './record-query.js';
import type {
  ApiKeyInfo,
  ApiKeyPatch,
  AuditEntry,
  ConversationState,
  KeySecretHash,
  NewApiKey,
  NewAuditEntry,
  NewOrganization,
  Organization,
  RecordFilter,
  RecordPage,
  SpendGroupBy,
  SpendRow,
  Store,
} from './store.js';
import { InvalidRecordError, OrganizationMissingError } from './store-errors.js';
import {
  apiKeyRow,
  itemsRow,
  KEY_COLUMNS,
  keyLimitValues,
  MONTH,
  newKeyLimits,
  organizationRow,
} from './store-rows.js';

/** Key of the transaction-scoped advisory lock that serialises `migrate()` across gateway instances. */
const MIGRATE_LOCK_KEY = 7_204_117_734_001;
/** BEGIN of a record batch, with durable commit in the same round trip. */
const DURABLE_BEGIN = 'BEGIN; SET LOCAL synchronous_commit TO on';

/** node-postgres returns BIGINT as a decimal string. */
const spendRow = z.object({ cost_nano: z.string().regex(/^-?\d+$/) });
export interface PostgresStoreOptions {
  /** Clock for `createdAt` / `deletedAt` / `revokedAt` and conversation expiry; injectable for tests. */
  now?: () => Date;
  /** Most connections the pool opens. Default 10. */
  maxConnections?: number;
  /** How long opening a connection may take, ms. Default 5000. */
  connectTimeoutMs?: number;
  /** Attempts of a query or transaction when the connection fails (server restart, dropped socket). Default 3. */
  attempts?: number;
  /** Outage lines: one when PostgreSQL becomes unreachable, one when it is back. Default: a process warning. */
  log?: (message: string) => void;
}

/**
 * The Store on PostgreSQL, for several gateway instances sharing one database. A `pg.Pool` on the connection
 * string; `migrate()` creates the tables (idempotent, serialised across instances by an advisory lock) and
 * must run before any other method (`openStore` does it). Semantics are the SQLite store's, pinned by the
 * shared contract suite: upsert keeps undefined fields and clears null ones; deletion is soft; a batch of
 * records is one transaction that ignores already-stored genIds and adds spend only for rows it inserted.
 */
export class PostgresStore implements Store {
  readonly #db: PostgresConnection;
  readonly #now: () => Date;
  #migrated = false;
  /** Keys' limits, per-key spend and the audit log. */
  readonly #admin: ReturnType<typeof postgresAdminTables>;
  readonly #organizations: ReturnType<typeof postgresOrganizations>;
  /** Months whose partition this store has created or found. */
  readonly #months = new Set<string>();

  /** Creates the pool; connections are opened lazily, by the first query. */
  constructor(connectionString: string, options: PostgresStoreOptions = {}) {
    this.#db = new PostgresConnection(connectionString, {
      maxConnections: options.maxConnections ?? 10,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      attempts: options.attempts ?? 3,
      log: options.log ?? ((message: string) => process.emitWarning(`PostgresStore: ${message}`)),
    });
    this.#now = options.now ?? (() => new Date());
    this.#admin = postgresAdminTables(
      this.#db,
      (sql, values) => this.#query(sql, values),
      () => this.#assertReady(),
    );
    this.#organizations = postgresOrganizations(
      this.#db,
      (sql, values) => this.#query(sql, values),
      () => this.#timestamp(),
    );
  }

  async migrate(): Promise<void> {
    if (this.#migrated) return;
    await this.#db.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATE_LOCK_KEY]);
      await migratePostgres(client, this.#now);
    });
    this.#migrated = true;
    // The partitions of this month and the next two, so inserts rarely have to create one.
    const month = this.#timestamp().slice(0, 7);
    await this.#ensureMonths([month, nextMonth(month), nextMonth(nextMonth(month))]);
  }

  async upsertOrganization(org: NewOrganization): Promise<Organization> {
    return this.#organizations.upsert(org);
  }

  async createOrganization(org: NewOrganization): Promise<Organization | undefined> {
    return this.#organizations.create(org);
  }

  async updateOrganization(org: NewOrganization): Promise<Organization | undefined> {
    return this.#organizations.update(org);
  }

  async getOrganization(id: string): Promise<Organization | undefined> {
    if (holdsNul(id)) return undefined;
    const sql = `SELECT ${ORG_COLUMNS} FROM organizations WHERE id = $1 AND deleted_at IS NULL`;
    return organizationRow.optional().parse((await this.#query(sql, [id]))[0]);
  }

  async listOrganizations(): Promise<Organization[]> {
    const sql = `SELECT ${ORG_COLUMNS} FROM organizations WHERE deleted_at IS NULL ORDER BY id COLLATE "C"`;
    return (await this.#query(sql)).map((row) => organizationRow.parse(row));
  }

  async deleteOrganization(id: string): Promise<boolean> {
    this.#assertReady();
    return refusingNul(this.#organizations.delete(id, false));
  }

  async deleteOrganizationAndKeys(id: string): Promise<boolean> {
    this.#assertReady();
    return refusingNul(this.#organizations.delete(id, true));
  }

  async createApiKey(key: NewApiKey): Promise<ApiKeyInfo> {
    const info: ApiKeyInfo = {
      id: `key_${randomBytes(12).toString('hex')}`,
      orgId: key.orgId,
      name: key.name ?? '',
      prefix: key.prefix,
      keyHash: key.keyHash,
      createdAt: this.#timestamp(),
      revokedAt: null,
      ...newKeyLimits(key),
    };
    if (holdsNul(key.orgId)) throw new OrganizationMissingError(`organization "${key.orgId}" does not exist`);
    const limits = keyLimitValues(info);
    let inserted: Row[];
    try {
      // Only into a live organization, locked FOR SHARE until the insert commits: a deletion running meanwhile
      // either waits for it and then revokes the key, or commits first and no key is written.
      inserted = await this.#query(
        `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, created_at, revoked_at, monthly_limit_usd,
           requests_per_minute, models, expires_at)
         SELECT $1::text, id, $3::text, $4::text, $5::text, $6::text, NULL, $7::text, $8::integer, $9::text,
           $10::text
         FROM organizations WHERE id = $2::text AND deleted_at IS NULL FOR SHARE
         RETURNING id`,
        [
          ...[info.id, info.orgId, info.name, info.prefix, info.keyHash, info.createdAt],
          ...[limits.monthlyLimitUsd, limits.requestsPerMinute, limits.models, limits.expiresAt],
        ],
      );
    } catch (error) {
      if (error instanceof DatabaseError && error.code === '23505') {
        throw new Error('an API key with this hash already exists', { cause: error });
      }
      throw error;
    }
    if (inserted.length === 0)
      throw new OrganizationMissingError(`organization "${key.orgId}" does not exist`);
    return info;
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyInfo | undefined> {
    const rows = await this.#query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [keyHash]);
    return apiKeyRow.optional().parse(rows[0]);
  }

  async replaceApiKeyHash(id: string, oldHash: string, newHash: string): Promise<boolean> {
    const sql = 'UPDATE api_keys SET key_hash = $1 WHERE id = $2 AND key_hash = $3 RETURNING id';
    return (await this.#query(sql, [newHash, id, oldHash])).length > 0;
  }

  async listApiKeys(orgId?: string): Promise<ApiKeyInfo[]> {
    if (holdsNul(orgId)) return [];
    const order = 'ORDER BY created_at COLLATE "C", id COLLATE "C"';
    const rows =
      orgId === undefined
        ? await this.#query(`SELECT ${KEY_COLUMNS} FROM api_keys ${order}`)
        : await this.#query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE org_id = $1 ${order}`, [orgId]);
    return rows.map((row) => apiKeyRow.parse(row));
  }

  async revokeApiKey(id: string): Promise<boolean> {
    const sql = 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id';
    return (await this.#query(sql, [this.#timestamp(), id])).length > 0;
  }

  async getApiKey(id: string): Promise<ApiKeyInfo | undefined> {
    if (holdsNul(id)) return undefined;
    return this.#admin.getKey(id);
  }

  async updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyInfo | undefined> {
    return refusingNul(this.#admin.updateKey(id, patch));
  }

  async rotateApiKey(id: string, secret: KeySecretHash): Promise<ApiKeyInfo | undefined> {
    return this.#admin.rotateKey(id, secret);
  }

  async getKeyMonthlySpend(keyId: string, month: string): Promise<number> {
    if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got "${month}"`);
    return this.#admin.keySpend(keyId, month);
  }

  async appendAudit(entry: NewAuditEntry): Promise<AuditEntry> {
    return this.#admin.appendAudit(entry, this.#timestamp());
  }

  async listAudit(page: { limit: number; before?: string }): Promise<AuditEntry[]> {
    return this.#admin.listAudit(page.limit, page.before);
  }

  async insertRecords(records: GenerationRecord[]): Promise<void> {
    this.#assertReady();
    // First occurrence of a repeated genId wins, as in the SQLite store; sorted, so that concurrent batches
    // take row locks in the same order and cannot deadlock.
    const byId = new Map<string, RecordRow>();
    for (const record of records) {
      const row = recordRow(record);
      if (!byId.has(record.genId)) byId.set(record.genId, row);
    }
    if (byId.size === 0) return;
    const rows = [...byId.values()].sort((a, b) => (a.record.genId < b.record.genId ? -1 : 1));
    await this.#ensureMonths(rows.map((row) => row.month));
    try {
      await this.#insertRows(rows, false).catch((error: unknown) => {
        // 23505: a record of the batch is stored already (a retry); again, skipping those.
        if (!(error instanceof DatabaseError && error.code === '23505')) throw error;
        return this.#insertRows(rows, true);
      });
    } catch (error) {
      // 22: data exception (a value out of range), 23: integrity constraint; the rows, not the server.
      if (error instanceof DatabaseError && /^2[23]/.test(error.code ?? '')) {
        throw new InvalidRecordError(`PostgreSQL refused the records: ${error.message}`, { cause: error });
      }
      throw error;
    }
  }

  /** Records are money facts: acknowledged only once durable, even where the server trades durability for
   * speed (`synchronous_commit = off` loses the last commits of a crash). */
  #insertRows(rows: RecordRow[], skipStored: boolean): Promise<void> {
    return this.#db.transaction((client) => insertRecordRows(client, rows, skipStored), DURABLE_BEGIN);
  }

  async listRecords(filter: RecordFilter, page: { limit: number; cursor?: string }): Promise<RecordPage> {
    this.#assertReady();
    return refusingNul(listRecordRows(this.#db, filter, page));
  }

  async spendReport(filter: Omit<RecordFilter, 'status'>, groupBy: SpendGroupBy): Promise<SpendRow[]> {
    this.#assertReady();
    return refusingNul(spendReportRows(this.#db, filter, groupBy));
  }

  /** Drops the monthly partitions wholly before `before`, then deletes the older rest in bounded steps. */
  async pruneRecords(before: string): Promise<number> {
    this.#assertReady();
    const beforeMs = checkFilter({ from: before, to: before }).fromMs;
    const { deleted, droppedMonths } = await pruneRecordRows(this.#db, beforeMs);
    for (const month of droppedMonths) this.#months.delete(month);
    return deleted;
  }

  /** Creates the partitions of months this store has not seen yet (remembered per store). */
  async #ensureMonths(months: string[]): Promise<void> {
    const missing = new Set(months.filter((month) => !this.#months.has(month)));
    if (missing.size === 0) return;
    await ensurePartitions(this.#db, missing);
    for (const month of missing) this.#months.add(month);
  }

  async getRecord(genId: string, orgId: string): Promise<GenerationRecord | undefined> {
    if (holdsNul(genId, orgId)) return undefined;
    const sql = `SELECT ${STORED_RECORD_COLUMNS} FROM records WHERE gen_id = $1 AND org_id = $2`;
    const row = (await this.#query(sql, [genId, orgId]))[0];
    return row === undefined ? undefined : storedRecord(row);
  }

  async getMonthlySpend(orgId: string, month: string): Promise<number> {
    if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got "${month}"`);
    const sql = 'SELECT cost_nano FROM monthly_spend WHERE org_id = $1 AND month = $2';
    const row = spendRow.optional().parse((await this.#query(sql, [orgId, month]))[0]);
    return row ? Number(row.cost_nano) : 0;
  }

  async saveConversation(state: ConversationState): Promise<void> {
    await this.#query(
      `INSERT INTO conversations (gen_id, org_id, expires_at, items) VALUES ($1, $2, $3, $4)
       ON CONFLICT (gen_id) DO UPDATE SET org_id = excluded.org_id, expires_at = excluded.expires_at,
         items = excluded.items`,
      [state.genId, state.orgId, state.expiresAt, JSON.stringify(state.items)],
    );
    await this.#query('DELETE FROM conversations WHERE expires_at <= $1', [this.#timestamp()]);
  }

  async getConversation(genId: string, orgId: string): Promise<unknown[] | undefined> {
    if (holdsNul(genId, orgId)) return undefined;
    const sql = 'SELECT items FROM conversations WHERE gen_id = $1 AND org_id = $2 AND expires_at > $3';
    const row = itemsRow.optional().parse((await this.#query(sql, [genId, orgId, this.#timestamp()]))[0]);
    if (!row) return undefined;
    const items: unknown = JSON.parse(row.items);
    return Array.isArray(items) ? items : undefined;
  }

  async ping(): Promise<void> {
    await this.#db.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.#db.end();
  }

  async #query(sql: string, values: unknown[] = []): Promise<Row[]> {
    this.#assertReady();
    // Not the record batches (insertRecords), whose refusals are InvalidRecordError for the record queue.
    return refusingNul(this.#db.query(sql, values));
  }

  #assertReady(): void {
    if (!this.#migrated) throw new Error('PostgresStore: call migrate() before using the store');
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }
}
