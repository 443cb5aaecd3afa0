import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { OutageLog } from './outage-log.js';
import { recordRow } from './record-columns.js';
import { checkFilter } from './record-query.js';
import { prepareAdminStatements } from './sqlite-admin-tables.js';
import { keepForLife } from './sqlite-kept.js';
import { prepareOrganizationStatements } from './sqlite-organizations.js';
import { SQLITE_PRUNE_BATCH, SqliteRecords } from './sqlite-records.js';
import { migrateSqlite } from './sqlite-schema.js';
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
import { InvalidRecordError, OrganizationMissingError, StoreUnavailableError } from './store-errors.js';
import {
  apiKeyRow,
  itemsRow,
  KEY_COLUMNS,
  keyLimitValues,
  MONTH,
  newKeyLimits,
  organizationRow,
} from './store-rows.js';

/**
 * WAL pages after which a commit checkpoints (SQLite's default is 1,000). A batch of 500 records rewrites about
 * 600 pages, so the default checkpoints, with two fsyncs, after nearly every batch; 4,000 (a WAL of about 16 MB)
 * checkpoints every few batches and writes each page rewritten meanwhile once. Measured in the README.
 */
export const SQLITE_WAL_CHECKPOINT_PAGES = 4_000;

/**
 * SQLite's page cache, in KiB: 2 MiB, SQLite's own default (better-sqlite3 builds it with 16 MB). The cache
 * fills as the records grow and is memory the process keeps (it was a third of the C heap at the bench's
 * peak); the pages that inserts touch (the right edges of time-ordered indexes) fit in 2 MiB, and a query that
 * reads more reads it from the operating system's file cache. Measured in the README.
 */
export const SQLITE_CACHE_KIB = 2_000;

const spendRow = z.object({ cost_nano: z.number().int() });

function prepareKeyStatements(db: Database.Database) {
  return {
    /** Only into a live organization (no row otherwise). */
    insertKey: db.prepare(
      `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, created_at, revoked_at, monthly_limit_usd,
         requests_per_minute, models, expires_at)
       SELECT @id, @orgId, @name, @prefix, @keyHash, @createdAt, NULL, @monthlyLimitUsd, @requestsPerMinute,
         @models, @expiresAt
       WHERE EXISTS (SELECT 1 FROM organizations WHERE id = @orgId AND deleted_at IS NULL)`,
    ),
    revokeOrgKeys: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE org_id = ? AND revoked_at IS NULL'),
    keyByHash: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`),
    listKeys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`),
    listOrgKeys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE org_id = ? ORDER BY created_at, id`),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    replaceKeyHash: db.prepare('UPDATE api_keys SET key_hash = ? WHERE id = ? AND key_hash = ?'),
  };
}

function prepareSpendStatements(db: Database.Database) {
  return {
    selectSpend: db.prepare('SELECT cost_nano FROM monthly_spend WHERE org_id = ? AND month = ?'),
  };
}

function prepareConversationStatements(db: Database.Database) {
  return {
    saveConversation: db.prepare(
      'INSERT OR REPLACE INTO conversations (gen_id, org_id, expires_at, items) VALUES (?, ?, ?, ?)',
    ),
    selectConversation: db.prepare(
      'SELECT items FROM conversations WHERE gen_id = ? AND org_id = ? AND expires_at > ?',
    ),
    dropExpiredConversations: db.prepare('DELETE FROM conversations WHERE expires_at <= ?'),
  };
}

/** Every statement and transaction of the store, prepared once per connection. */
function prepareStatements(db: Database.Database) {
  const organizations = prepareOrganizationStatements(db);
  const keys = prepareKeyStatements(db);
  return {
    ...organizations,
    ...keys,
    /** Marks the organization deleted and revokes its keys, in one transaction. */
    deleteOrgAndKeys: db.transaction((id: string, now: string): boolean => {
      if (organizations.deleteOrg.run(now, id).changes === 0) return false;
      keys.revokeOrgKeys.run(now, id);
      return true;
    }),
    ...prepareSpendStatements(db),
    records: new SqliteRecords(db),
    ...prepareConversationStatements(db),
    admin: prepareAdminStatements(db),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

/** Result codes that say the database file is busy or its disk failing, not that the rows are wrong. */
const TRANSIENT_SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

/** A failed write as the record queue needs to see it: wait (unavailable) or isolate (invalid rows). */
function classifySqliteError(error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  if (TRANSIENT_SQLITE.test(error.code)) {
    return new StoreUnavailableError(`SQLite is unavailable: ${error.message}`, { cause: error });
  }
  if (
    error.code.startsWith('SQLITE_CONSTRAINT') ||
    error.code === 'SQLITE_MISMATCH' ||
    error.code === 'SQLITE_TOOBIG'
  ) {
    return new InvalidRecordError(`SQLite refused the records: ${error.message}`, { cause: error });
  }
  return error;
}

export interface SqliteStoreOptions {
  /** Clock for `createdAt` / `deletedAt` / `revokedAt`; injectable for tests. */
  now?: () => Date;
  /** How long a write waits for another process's lock before failing, ms. Default 5000. */
  busyTimeoutMs?: number;
  /** Outage lines of record writes (database busy, disk full): one when they start failing, one when back. */
  log?: (message: string) => void;
}

/**
 * The default Store: one SQLite file (or `:memory:`) through better-sqlite3, in WAL mode so readers never
 * block the record writer. Statements are prepared once, by `migrate()`, which must run before any other
 * method (`openStore` does it).
 *
 * Semantics the contract suite pins: `upsertOrganization` keeps a field that is `undefined` and clears one
 * that is `null`; re-creating a deleted organization starts from defaults. `insertRecords` ignores a record
 * whose `genId` and `createdAt` are already stored (its spend is not counted twice), so a retried batch is
 * harmless.
 */
export class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #outage: OutageLog;
  #statements: Statements | undefined;
  /** Prepared once: a statement made per call would be collected later (sqlite-kept.ts). */
  readonly #ping: Database.Statement;

  /** Opens (creating it and its directory when missing) the database at `filename`, or `:memory:`. */
  constructor(filename: string, options: SqliteStoreOptions = {}) {
    if (filename !== ':memory:' && filename !== '') {
      mkdirSync(dirname(resolve(filename)), { recursive: true });
    }
    this.#db = new Database(filename);
    keepForLife(this);
    this.#now = options.now ?? (() => new Date());
    this.#outage = new OutageLog('SQLite', options.log ?? ((message) => process.emitWarning(message)));
    // `exec`, not `pragma()`: no statement object to be collected later (sqlite-kept.ts).
    this.#db.exec(
      `PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))};
       PRAGMA journal_mode = WAL;
       PRAGMA synchronous = NORMAL;
       PRAGMA wal_autocheckpoint = ${SQLITE_WAL_CHECKPOINT_PAGES};
       PRAGMA foreign_keys = ON;
       PRAGMA cache_size = -${SQLITE_CACHE_KIB};`,
    );
    this.#ping = this.#db.prepare('SELECT 1');
  }

  async migrate(): Promise<void> {
    if (this.#statements) return;
    migrateSqlite(this.#db, this.#now);
    this.#statements = prepareStatements(this.#db);
  }

  async upsertOrganization(org: NewOrganization): Promise<Organization> {
    return this.#prepared().upsertOrg.immediate(org, this.#timestamp());
  }

  async getOrganization(id: string): Promise<Organization | undefined> {
    return organizationRow.optional().parse(this.#prepared().selectOrg.get(id));
  }

  async listOrganizations(): Promise<Organization[]> {
    return this.#prepared()
      .listOrgs.all()
      .map((row) => organizationRow.parse(row));
  }

  async createOrganization(org: NewOrganization): Promise<Organization | undefined> {
    return this.#prepared().createOrg.immediate(org, this.#timestamp());
  }

  async updateOrganization(org: NewOrganization): Promise<Organization | undefined> {
    return this.#prepared().updateOrg.immediate(org, this.#timestamp());
  }

  async deleteOrganization(id: string): Promise<boolean> {
    return this.#prepared().deleteOrg.run(this.#timestamp(), id).changes > 0;
  }

  async deleteOrganizationAndKeys(id: string): Promise<boolean> {
    return this.#prepared().deleteOrgAndKeys.immediate(id, this.#timestamp());
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
    let inserted: number;
    try {
      inserted = this.#prepared().insertKey.run({ ...info, ...keyLimitValues(info) }).changes;
    } catch (error) {
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new Error('an API key with this hash already exists', { cause: error });
      }
      throw error;
    }
    if (inserted === 0) throw new OrganizationMissingError(`organization "${key.orgId}" does not exist`);
    return info;
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyInfo | undefined> {
    return apiKeyRow.optional().parse(this.#prepared().keyByHash.get(keyHash));
  }

  async replaceApiKeyHash(id: string, oldHash: string, newHash: string): Promise<boolean> {
    return this.#prepared().replaceKeyHash.run(newHash, id, oldHash).changes > 0;
  }

  async listApiKeys(orgId?: string): Promise<ApiKeyInfo[]> {
    const s = this.#prepared();
    const rows = orgId === undefined ? s.listKeys.all() : s.listOrgKeys.all(orgId);
    return rows.map((row) => apiKeyRow.parse(row));
  }

  async revokeApiKey(id: string): Promise<boolean> {
    return this.#prepared().revokeKey.run(this.#timestamp(), id).changes > 0;
  }

  async getApiKey(id: string): Promise<ApiKeyInfo | undefined> {
    return this.#prepared().admin.getKey(id);
  }

  async updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyInfo | undefined> {
    return this.#prepared().admin.updateKey.immediate(id, patch);
  }

  async rotateApiKey(id: string, secret: KeySecretHash): Promise<ApiKeyInfo | undefined> {
    return this.#prepared().admin.rotateKey.immediate(id, secret);
  }

  async getKeyMonthlySpend(keyId: string, month: string): Promise<number> {
    if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got "${month}"`);
    return this.#prepared().admin.keySpend(keyId, month);
  }

  async appendAudit(entry: NewAuditEntry): Promise<AuditEntry> {
    return this.#prepared().admin.appendAudit(entry, this.#timestamp());
  }

  async listAudit(page: { limit: number; before?: string }): Promise<AuditEntry[]> {
    return this.#prepared().admin.listAudit(page.limit, page.before);
  }

  async insertRecords(records: GenerationRecord[]): Promise<void> {
    const s = this.#prepared();
    const rows = records.map(recordRow);
    if (rows.length === 0) return;
    try {
      s.records.insertBatch.immediate(rows);
      this.#outage.recovered();
    } catch (error) {
      const classified = classifySqliteError(error);
      if (classified instanceof StoreUnavailableError) this.#outage.failed(error);
      throw classified;
    }
  }

  async getRecord(genId: string, orgId: string): Promise<GenerationRecord | undefined> {
    return this.#prepared().records.get(genId, orgId);
  }

  async listRecords(filter: RecordFilter, page: { limit: number; cursor?: string }): Promise<RecordPage> {
    return this.#prepared().records.list(filter, page);
  }

  async spendReport(filter: Omit<RecordFilter, 'status'>, groupBy: SpendGroupBy): Promise<SpendRow[]> {
    return this.#prepared().records.spend(filter, groupBy);
  }

  /** Deletes in steps of SQLITE_PRUNE_BATCH rows, yielding to the event loop between them. */
  async pruneRecords(before: string): Promise<number> {
    const beforeMs = checkFilter({ from: before, to: before }).fromMs;
    const records = this.#prepared().records;
    let total = 0;
    for (;;) {
      const deleted = records.pruneStep(beforeMs);
      total += deleted;
      if (deleted < SQLITE_PRUNE_BATCH) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async getMonthlySpend(orgId: string, month: string): Promise<number> {
    if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got "${month}"`);
    const row = spendRow.optional().parse(this.#prepared().selectSpend.get(orgId, month));
    return row?.cost_nano ?? 0;
  }

  async saveConversation(state: ConversationState): Promise<void> {
    const s = this.#prepared();
    s.saveConversation.run(state.genId, state.orgId, state.expiresAt, JSON.stringify(state.items));
    s.dropExpiredConversations.run(this.#timestamp());
  }

  async getConversation(genId: string, orgId: string): Promise<unknown[] | undefined> {
    const row = itemsRow
      .optional()
      .parse(this.#prepared().selectConversation.get(genId, orgId, this.#timestamp()));
    if (!row) return undefined;
    const items: unknown = JSON.parse(row.items);
    return Array.isArray(items) ? items : undefined;
  }

  async ping(): Promise<void> {
    if (!this.#db.open) throw new Error('the SQLite database is closed');
    this.#ping.get();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #prepared(): Statements {
    if (!this.#statements) throw new Error('SqliteStore: call migrate() before using the store');
    return this.#statements;
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }
}
