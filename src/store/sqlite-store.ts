import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { OutageLog } from './outage-log.js';
import { recordRow } from './record-body.js';
import { checkFilter } from './record-query.js';
import { classifySqliteError, fileIdentity, openSqlite } from './sqlite-connection.js';
import { keepForLife } from './sqlite-kept.js';
import { SQLITE_PRUNE_BATCH } from './sqlite-records.js';
import { migrateSqlite } from './sqlite-schema.js';
import { prepareStatements, type Statements } from './sqlite-statements.js';
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
import { OrganizationMissingError, StoreUnavailableError } from './store-errors.js';
import { apiKeyRow, itemsRow, keyLimitValues, MONTH, newKeyLimits, organizationRow } from './store-rows.js';

const spendRow = z.object({ cost_nano: z.number().int() });

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
  /** The database file and the identity it had when opened (none for `:memory:`). */
  readonly #file: { name: string; identity: string | undefined } | undefined;

  /** Opens (creating it and its directory when missing) the database at `filename`, or `:memory:`. */
  constructor(filename: string, options: SqliteStoreOptions = {}) {
    this.#db = openSqlite(filename, options.busyTimeoutMs ?? 5000);
    keepForLife(this);
    this.#now = options.now ?? (() => new Date());
    this.#outage = new OutageLog('SQLite', options.log ?? ((message) => process.emitWarning(message)));
    this.#ping = this.#db.prepare('SELECT 1');
    this.#file =
      filename === ':memory:' || filename === ''
        ? undefined
        : { name: filename, identity: fileIdentity(filename) };
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
      this.#checkFile();
      s.records.insertBatch.immediate(rows);
      this.#outage.recovered();
    } catch (error) {
      const classified = classifySqliteError(error);
      if (classified instanceof StoreUnavailableError) this.#outage.failed(error);
      throw classified;
    }
  }

  async getRecord(genId: string, orgId: string, since?: string): Promise<GenerationRecord | undefined> {
    return this.#prepared().records.get(genId, orgId, since);
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
    const items = state.itemsJson ?? JSON.stringify(state.items);
    const { genId, orgId, orgCreatedAt, expiresAt } = state;
    s.saveConversation.run({ genId, orgId, orgCreatedAt, expiresAt, items });
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
    this.#checkFile();
    this.#ping.get();
  }

  /**
   * Refuses to go on with a database file deleted or replaced while the gateway runs: SQLite would keep
   * writing the deleted file, and records the journal let go as written would be gone at the next start.
   * One `stat` per batch of records (and per readiness check).
   */
  #checkFile(): void {
    if (this.#file === undefined || fileIdentity(this.#file.name) === this.#file.identity) return;
    throw new StoreUnavailableError(
      `the SQLite file ${this.#file.name} was deleted or replaced while the gateway ran; records stay in the journal until a restart opens the file again`,
    );
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
