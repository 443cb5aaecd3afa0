import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { generationRecordSchema } from '../records/generation-record-schema.js';
import { OutageLog } from './outage-log.js';
import { spendSums } from './spend-sums.js';
import { ADMIN_SCHEMA, migrateKeyColumns, prepareAdminStatements } from './sqlite-admin-tables.js';
import { classifySqliteError } from './sqlite-errors.js';
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
  Store,
} from './store.js';
import { StoreUnavailableError } from './store-errors.js';
import {
  apiKeyRow,
  bodyRow,
  insertableMonth,
  itemsRow,
  KEY_COLUMNS,
  keyLimitValues,
  MONTH,
  newKeyLimits,
  organizationRow,
} from './store-rows.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  monthly_limit_usd TEXT,
  requests_per_minute INTEGER,
  created_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_org_id ON api_keys (org_id);
CREATE TABLE IF NOT EXISTS generation_records (
  gen_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS generation_records_org_id ON generation_records (org_id);
CREATE TABLE IF NOT EXISTS conversations (
  gen_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  items TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS monthly_spend (
  org_id TEXT NOT NULL,
  month TEXT NOT NULL,
  cost_nano INTEGER NOT NULL,
  PRIMARY KEY (org_id, month)
);
`;

/** Columns renamed to the interface's field names, so a row parses straight into the returned object. */
const ORG_COLUMNS =
  'id, name, monthly_limit_usd AS monthlyLimitUsd, requests_per_minute AS requestsPerMinute, created_at AS createdAt';

const spendRow = z.object({ cost_nano: z.number().int() });

interface RecordRow {
  record: GenerationRecord;
  month: string;
  body: string;
}

function prepareOrganizationStatements(db: Database.Database) {
  const selectOrg = db.prepare(
    `SELECT ${ORG_COLUMNS} FROM organizations WHERE id = ? AND deleted_at IS NULL`,
  );
  const writeOrg = db.prepare(
    `INSERT INTO organizations (id, name, monthly_limit_usd, requests_per_minute, created_at, deleted_at)
     VALUES (@id, @name, @monthlyLimitUsd, @requestsPerMinute, @createdAt, NULL)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, monthly_limit_usd = excluded.monthly_limit_usd,
       requests_per_minute = excluded.requests_per_minute, created_at = excluded.created_at, deleted_at = NULL`,
  );
  return {
    selectOrg,
    listOrgs: db.prepare(`SELECT ${ORG_COLUMNS} FROM organizations WHERE deleted_at IS NULL ORDER BY id`),
    deleteOrg: db.prepare('UPDATE organizations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
    /** Undefined fields keep the live organization's values; a deleted one is re-created from defaults. */
    upsertOrg: db.transaction((org: NewOrganization, now: string): Organization => {
      const live = organizationRow.optional().parse(selectOrg.get(org.id));
      const next: Organization = {
        id: org.id,
        name: org.name ?? live?.name ?? org.id,
        monthlyLimitUsd:
          org.monthlyLimitUsd !== undefined ? org.monthlyLimitUsd : (live?.monthlyLimitUsd ?? null),
        requestsPerMinute:
          org.requestsPerMinute !== undefined ? org.requestsPerMinute : (live?.requestsPerMinute ?? null),
        createdAt: live?.createdAt ?? now,
      };
      writeOrg.run(next);
      return next;
    }),
  };
}

function prepareKeyStatements(db: Database.Database) {
  return {
    insertKey: db.prepare(
      `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, created_at, revoked_at, monthly_limit_usd,
         requests_per_minute, models, expires_at)
       VALUES (@id, @orgId, @name, @prefix, @keyHash, @createdAt, NULL, @monthlyLimitUsd, @requestsPerMinute,
         @models, @expiresAt)`,
    ),
    keyByHash: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`),
    listKeys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`),
    listOrgKeys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE org_id = ? ORDER BY created_at, id`),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    replaceKeyHash: db.prepare('UPDATE api_keys SET key_hash = ? WHERE id = ? AND key_hash = ?'),
  };
}

function prepareRecordStatements(db: Database.Database, addKeySpend: Database.Statement) {
  const insertRecord = db.prepare(
    `INSERT INTO generation_records (gen_id, org_id, created_at, body) VALUES (?, ?, ?, ?)
     ON CONFLICT (gen_id) DO NOTHING`,
  );
  const addSpend = db.prepare(
    `INSERT INTO monthly_spend (org_id, month, cost_nano) VALUES (?, ?, ?)
     ON CONFLICT (org_id, month) DO UPDATE SET cost_nano = cost_nano + excluded.cost_nano`,
  );
  return {
    selectRecord: db.prepare('SELECT body FROM generation_records WHERE gen_id = ? AND org_id = ?'),
    selectSpend: db.prepare('SELECT cost_nano FROM monthly_spend WHERE org_id = ? AND month = ?'),
    /** Spend is added only for records actually inserted, so a retried batch is not counted twice. */
    insertBatch: db.transaction((rows: RecordRow[]) => {
      // One spend update per organization (and key) and month of the batch, not one per record.
      const inserted = rows.filter(
        ({ record, body }) =>
          insertRecord.run(record.genId, record.orgId, record.createdAt, body).changes > 0,
      );
      const sums = spendSums(inserted);
      for (const { id, month, nano } of sums.orgs) addSpend.run(id, month, nano);
      for (const { id, month, nano } of sums.keys) addKeySpend.run(id, month, nano);
    }),
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
  const admin = prepareAdminStatements(db);
  return {
    ...prepareOrganizationStatements(db),
    ...prepareKeyStatements(db),
    ...prepareRecordStatements(db, admin.addKeySpend),
    ...prepareConversationStatements(db),
    admin,
  };
}

type Statements = ReturnType<typeof prepareStatements>;

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
 * whose `genId` is already stored (its spend is not counted twice), so a retried batch is harmless.
 */
export class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #outage: OutageLog;
  #statements: Statements | undefined;

  /** Opens (creating it and its directory when missing) the database at `filename`, or `:memory:`. */
  constructor(filename: string, options: SqliteStoreOptions = {}) {
    if (filename !== ':memory:' && filename !== '') {
      mkdirSync(dirname(resolve(filename)), { recursive: true });
    }
    this.#db = new Database(filename);
    this.#now = options.now ?? (() => new Date());
    this.#outage = new OutageLog('SQLite', options.log ?? ((message) => process.emitWarning(message)));
    this.#db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('foreign_keys = ON');
  }

  async migrate(): Promise<void> {
    if (this.#statements) return;
    this.#db.exec(SCHEMA);
    this.#db.exec(ADMIN_SCHEMA);
    migrateKeyColumns(this.#db);
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

  async deleteOrganization(id: string): Promise<boolean> {
    return this.#prepared().deleteOrg.run(this.#timestamp(), id).changes > 0;
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
    try {
      this.#prepared().insertKey.run({ ...info, ...keyLimitValues(info) });
    } catch (error) {
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new Error('an API key with this hash already exists', { cause: error });
      }
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new Error(`organization "${key.orgId}" does not exist`, { cause: error });
      }
      throw error;
    }
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
    const rows = records.map(
      (record): RecordRow => ({ record, month: insertableMonth(record), body: JSON.stringify(record) }),
    );
    if (rows.length === 0) return;
    try {
      s.insertBatch.immediate(rows);
      this.#outage.recovered();
    } catch (error) {
      const classified = classifySqliteError(error);
      if (classified instanceof StoreUnavailableError) this.#outage.failed(error);
      throw classified;
    }
  }

  async getRecord(genId: string, orgId: string): Promise<GenerationRecord | undefined> {
    const row = bodyRow.optional().parse(this.#prepared().selectRecord.get(genId, orgId));
    if (!row) return undefined;
    const parsed: unknown = JSON.parse(row.body);
    return generationRecordSchema.parse(parsed);
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
    this.#db.prepare('SELECT 1').get();
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
