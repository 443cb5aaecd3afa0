import { DatabaseError } from 'pg';
import type { PostgresConnection, Row } from './postgres-connection.js';
import type { ApiKeyInfo, ApiKeyPatch, AuditEntry, KeySecretHash, NewAuditEntry } from './store.js';
import {
  AUDIT_COLUMNS,
  apiKeyRow,
  auditJson,
  auditRow,
  KEY_COLUMNS,
  KEY_LIMIT_COLUMNS,
  keyLimitValues,
  patchedKey,
} from './store-rows.js';

/**
 * The PostgreSQL store's tables for what operators manage (the SQLite store has the same): per-key spend,
 * the admin audit log, and the limit columns `api_keys` gained after its first version.
 */
export const ADMIN_SCHEMA = `
${KEY_LIMIT_COLUMNS.map((c) => `ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS ${c.name} ${c.type};`).join('\n')}
CREATE TABLE IF NOT EXISTS key_monthly_spend (key_id TEXT NOT NULL, month TEXT NOT NULL,
  cost_nano BIGINT NOT NULL, PRIMARY KEY (key_id, month));
CREATE TABLE IF NOT EXISTS admin_audit (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at TEXT NOT NULL,
  actor TEXT NOT NULL, action TEXT NOT NULL, target TEXT NOT NULL, before TEXT, after TEXT);
`;

type Query = (sql: string, values?: unknown[]) => Promise<Row[]>;

/** API keys, their limits and spend, and the audit log on PostgreSQL; `query` checks the store is migrated. */
export class PostgresAdminTables {
  readonly #db: PostgresConnection;
  readonly #query: Query;
  readonly #assertReady: () => void;

  constructor(db: PostgresConnection, query: Query, assertReady: () => void) {
    this.#db = db;
    this.#query = query;
    this.#assertReady = assertReady;
  }

  async getKey(id: string): Promise<ApiKeyInfo | undefined> {
    const rows = await this.#query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return apiKeyRow.optional().parse(rows[0]);
  }

  /** Inserts a key into a live organization; false when there is none of its id. */
  async insertKey(info: ApiKeyInfo): Promise<boolean> {
    const limits = keyLimitValues(info);
    try {
      // Only into a live organization, locked FOR SHARE until the insert commits: a deletion running meanwhile
      // either waits for it and then revokes the key, or commits first and no key is written.
      const inserted = await this.#query(
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
      return inserted.length > 0;
    } catch (error) {
      if (error instanceof DatabaseError && error.code === '23505') {
        throw new Error('an API key with this hash already exists', { cause: error });
      }
      throw error;
    }
  }

  async keyByHash(keyHash: string): Promise<ApiKeyInfo | undefined> {
    const rows = await this.#query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [keyHash]);
    return apiKeyRow.optional().parse(rows[0]);
  }

  async replaceKeyHash(id: string, oldHash: string, newHash: string): Promise<boolean> {
    const sql = 'UPDATE api_keys SET key_hash = $1 WHERE id = $2 AND key_hash = $3 RETURNING id';
    return (await this.#query(sql, [newHash, id, oldHash])).length > 0;
  }

  async listKeys(orgId: string | undefined): Promise<ApiKeyInfo[]> {
    const order = 'ORDER BY created_at COLLATE "C", id COLLATE "C"';
    const rows =
      orgId === undefined
        ? await this.#query(`SELECT ${KEY_COLUMNS} FROM api_keys ${order}`)
        : await this.#query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE org_id = $1 ${order}`, [orgId]);
    return rows.map((row) => apiKeyRow.parse(row));
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    const sql = 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id';
    return (await this.#query(sql, [at, id])).length > 0;
  }

  async updateKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyInfo | undefined> {
    this.#assertReady();
    let updated: ApiKeyInfo | undefined;
    await this.#db.transaction(async (client) => {
      const sql = `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`;
      const key = apiKeyRow.optional().parse((await client.query<Row>(sql, [id])).rows[0]);
      if (!key) return;
      const next = patchedKey(key, patch);
      const v = keyLimitValues(next);
      await client.query(
        `UPDATE api_keys SET name = $2, monthly_limit_usd = $3, requests_per_minute = $4, models = $5,
           expires_at = $6 WHERE id = $1`,
        [id, next.name, v.monthlyLimitUsd, v.requestsPerMinute, v.models, v.expiresAt],
      );
      updated = next;
    });
    return updated;
  }

  async rotateKey(id: string, secret: KeySecretHash): Promise<ApiKeyInfo | undefined> {
    const rows = await this.#query(
      `UPDATE api_keys SET prefix = $2, key_hash = $3 WHERE id = $1 AND revoked_at IS NULL
       RETURNING ${KEY_COLUMNS}`,
      [id, secret.prefix, secret.keyHash],
    );
    return apiKeyRow.optional().parse(rows[0]);
  }

  async keySpend(keyId: string, month: string): Promise<number> {
    const sql = 'SELECT cost_nano FROM key_monthly_spend WHERE key_id = $1 AND month = $2';
    const row = (await this.#query(sql, [keyId, month]))[0];
    return row ? Number(row.cost_nano) : 0;
  }

  async appendAudit(entry: NewAuditEntry, at: string): Promise<AuditEntry> {
    const rows = await this.#query(
      `INSERT INTO admin_audit (at, actor, action, target, before, after) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${AUDIT_COLUMNS}`,
      [at, entry.actor, entry.action, entry.target, auditJson(entry.before), auditJson(entry.after)],
    );
    return auditRow.parse(rows[0]);
  }

  async listAudit(limit: number, before?: string): Promise<AuditEntry[]> {
    const rows =
      before === undefined
        ? await this.#query(`SELECT ${AUDIT_COLUMNS} FROM admin_audit ORDER BY id DESC LIMIT $1`, [limit])
        : await this.#query(
            `SELECT ${AUDIT_COLUMNS} FROM admin_audit WHERE id < $1 ORDER BY id DESC LIMIT $2`,
            [before, limit],
          );
    return rows.map((row) => auditRow.parse(row));
  }
}
