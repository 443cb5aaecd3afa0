import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { PostgresAdminTables } from './postgres-admin-tables.js';
import { PostgresConnection, type Row } from './postgres-connection.js';
import { ORG_COLUMNS, postgresOrganizations } from './postgres-organizations.js';
import { batchRows, insertRecordBatch } from './postgres-record-inserts.js';
import {
  ensurePartitions,
  listRecordRows,
  pruneRecordRows,
  STORED_RECORD_COLUMNS,
  spendReportRows,
} from './postgres-records.js';
import { holdsNul, refusingNul } from './postgres-refusals.js';
import { migratePostgres, nextMonth } from './postgres-schema.js';
import { recordRow, storedRecord } from './record-body.js';
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
import { OrganizationMissingError } from './store-errors.js';
import { itemsRow, MONTH, newKeyLimits, organizationRow } from './store-rows.js';

/** Key of the transaction-scoped advisory lock that serialises `migrate()` across gateway instances. */
const MIGRATE_LOCK_KEY = 7_204_117_734_001;

/** node-postgres returns BIGINT as a decimal string. */
const spendRow = z.object({ cost_nano: z.string().regex(/^-?\d+$/) });
export interface PostgresStoreOptions {
  /** Clock for `createdAt` / `deletedAt` / `revokedAt` and conversation expiry; injectable for tests. */
  now?: () => Date;
  /** Most connections the pool opens. Default 10. */
  maxConnections?: number;
  /** How long opening a connection may take, ms. Default 5000. */
  connectTimeoutMs?: number;
  /** How long a query may wait for its answer on an open connection, ms (then dropped). Default 10000. */
  queryTimeoutMs?: number;
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
  readonly #admin: PostgresAdminTables;
  readonly #organizations: ReturnType<typeof postgresOrganizations>;
  /** Months whose partition this store has created or found. */
  readonly #months = new Set<string>();

  /** Creates the pool; connections are opened lazily, by the first query. */
  constructor(connectionString: string, options: PostgresStoreOptions = {}) {
    this.#db = new PostgresConnection(connectionString, {
      maxConnections: options.maxConnections ?? 10,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
      attempts: options.attempts ?? 3,
      log: options.log ?? ((message: string) => process.emitWarning(`PostgresStore: ${message}`)),
    });
    this.#now = options.now ?? (() => new Date());
    this.#admin = new PostgresAdminTables(
      this.#db,
      (sql, values) => this.#query(sql, values),
      () => this.#assertReady(),
    );
    this.#organizations = postgresOrganizations(
      this.#db,
      (sql, values) => this.#query(sql, values),
      () => this.#timestamp(),
      () => this.#assertReady(),
    );
  }

  async migrate(): Promise<void> {
    if (this.#migrated) return;
    await this.#db.unboundedTransaction(async (client) => {
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
    if (!(await this.#admin.insertKey(info))) {
      throw new OrganizationMissingError(`organization "${key.orgId}" does not exist`);
    }
    return info;
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyInfo | undefined> {
    return this.#admin.keyByHash(keyHash);
  }

  async replaceApiKeyHash(id: string, oldHash: string, newHash: string): Promise<boolean> {
    return this.#admin.replaceKeyHash(id, oldHash, newHash);
  }

  async listApiKeys(orgId?: string): Promise<ApiKeyInfo[]> {
    if (holdsNul(orgId)) return [];
    return this.#admin.listKeys(orgId);
  }

  async revokeApiKey(id: string): Promise<boolean> {
    return this.#admin.revokeKey(id, this.#timestamp());
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
    const rows = batchRows(records.map(recordRow));
    if (rows.length === 0) return;
    await this.#ensureMonths(rows.map((row) => row.month));
    await insertRecordBatch(this.#db, rows);
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

  async getRecord(genId: string, orgId: string, since?: string): Promise<GenerationRecord | undefined> {
    if (holdsNul(genId, orgId)) return undefined;
    const sql = `SELECT ${STORED_RECORD_COLUMNS} FROM records WHERE gen_id = $1 AND org_id = $2
      AND ($3::timestamptz IS NULL OR created_at >= $3::timestamptz)`;
    const row = (await this.#query(sql, [genId, orgId, since ?? null]))[0];
    return row === undefined ? undefined : storedRecord(row);
  }

  async getMonthlySpend(orgId: string, month: string): Promise<number> {
    if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got "${month}"`);
    const sql = 'SELECT cost_nano FROM monthly_spend WHERE org_id = $1 AND month = $2';
    const row = spendRow.optional().parse((await this.#query(sql, [orgId, month]))[0]);
    return row ? Number(row.cost_nano) : 0;
  }

  async saveConversation(state: ConversationState): Promise<void> {
    // Kept only for the organization the request ran for, live and not created again since; its row locked
    // FOR SHARE, so that a deletion (which marks the row before it forgets the conversations) either waits for
    // this insert and then forgets it too, or comes first and this finds the organization deleted.
    await this.#query(
      `INSERT INTO conversations (gen_id, org_id, expires_at, items)
       SELECT $1, id, $3, $4 FROM organizations WHERE id = $2 AND created_at = $5 AND deleted_at IS NULL
       FOR SHARE
       ON CONFLICT (gen_id) DO UPDATE SET org_id = excluded.org_id, expires_at = excluded.expires_at,
         items = excluded.items`,
      [
        ...[state.genId, state.orgId, state.expiresAt],
        ...[state.itemsJson ?? JSON.stringify(state.items), state.orgCreatedAt],
      ],
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
