import type Database from 'better-sqlite3';
import { z } from 'zod';
import { prepareKept } from './sqlite-kept.js';
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
 * The SQLite store's tables for what operators manage: per-key spend (key × month, kept like the
 * organization's `monthly_spend`), the admin audit log, and the limit columns `api_keys` gained.
 */
export const ADMIN_SCHEMA = `
CREATE TABLE IF NOT EXISTS key_monthly_spend (
  key_id TEXT NOT NULL,
  month TEXT NOT NULL,
  cost_nano INTEGER NOT NULL,
  PRIMARY KEY (key_id, month)
);
CREATE TABLE IF NOT EXISTS admin_audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  before TEXT,
  after TEXT
);
`;

const columnRow = z.object({ name: z.string() });
const spendRow = z.object({ cost_nano: z.number().int() });

/** Adds the limit columns to an `api_keys` table made before they existed (SQLite has no ADD COLUMN IF NOT EXISTS). */
export function migrateKeyColumns(db: Database.Database): void {
  const present = new Set(
    prepareKept(db, 'PRAGMA table_info(api_keys)')
      .all()
      .map((row) => columnRow.parse(row).name),
  );
  for (const column of KEY_LIMIT_COLUMNS) {
    if (!present.has(column.name)) db.exec(`ALTER TABLE api_keys ADD COLUMN ${column.name} ${column.type}`);
  }
}

/** Statements of keys' limits, per-key spend and the audit log, prepared once per connection. */
export function prepareAdminStatements(db: Database.Database) {
  const selectKey = db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`);
  const writeKey = db.prepare(
    `UPDATE api_keys SET name = @name, monthly_limit_usd = @monthlyLimitUsd,
       requests_per_minute = @requestsPerMinute, models = @models, expires_at = @expiresAt WHERE id = @id`,
  );
  const rotate = db.prepare(
    'UPDATE api_keys SET prefix = ?, key_hash = ? WHERE id = ? AND revoked_at IS NULL',
  );
  const insertAudit = db.prepare(
    `INSERT INTO admin_audit (at, actor, action, target, before, after) VALUES (?, ?, ?, ?, ?, ?)
     RETURNING ${AUDIT_COLUMNS}`,
  );
  const newestAudit = db.prepare(`SELECT ${AUDIT_COLUMNS} FROM admin_audit ORDER BY id DESC LIMIT ?`);
  const olderAudit = db.prepare(
    `SELECT ${AUDIT_COLUMNS} FROM admin_audit WHERE id < ? ORDER BY id DESC LIMIT ?`,
  );
  const selectKeySpend = db.prepare('SELECT cost_nano FROM key_monthly_spend WHERE key_id = ? AND month = ?');
  const getKey = (id: string): ApiKeyInfo | undefined => apiKeyRow.optional().parse(selectKey.get(id));
  return {
    getKey,
    updateKey: db.transaction((id: string, patch: ApiKeyPatch): ApiKeyInfo | undefined => {
      const key = getKey(id);
      if (!key) return undefined;
      const next = patchedKey(key, patch);
      writeKey.run({ id, name: next.name, ...keyLimitValues(next) });
      return next;
    }),
    rotateKey: db.transaction((id: string, secret: KeySecretHash): ApiKeyInfo | undefined => {
      if (rotate.run(secret.prefix, secret.keyHash, id).changes === 0) return undefined;
      return getKey(id);
    }),
    keySpend: (keyId: string, month: string): number =>
      spendRow.optional().parse(selectKeySpend.get(keyId, month))?.cost_nano ?? 0,
    appendAudit: (entry: NewAuditEntry, at: string): AuditEntry =>
      auditRow.parse(
        insertAudit.get(
          at,
          entry.actor,
          entry.action,
          entry.target,
          auditJson(entry.before),
          auditJson(entry.after),
        ),
      ),
    listAudit: (limit: number, before?: string): AuditEntry[] =>
      (before === undefined ? newestAudit.all(limit) : olderAudit.all(BigInt(before), limit)).map((row) =>
        auditRow.parse(row),
      ),
  };
}
