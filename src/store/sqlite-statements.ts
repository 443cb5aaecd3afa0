import type Database from 'better-sqlite3';
import { prepareAdminStatements } from './sqlite-admin-tables.js';
import { prepareOrganizationStatements } from './sqlite-organizations.js';
import { SqliteRecords } from './sqlite-records.js';
import { KEY_COLUMNS } from './store-rows.js';

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
    /** Kept only for the organization the request ran for: live, and not created again since. */
    saveConversation: db.prepare(
      `INSERT OR REPLACE INTO conversations (gen_id, org_id, expires_at, items)
       SELECT @genId, id, @expiresAt, @items FROM organizations
       WHERE id = @orgId AND created_at = @orgCreatedAt AND deleted_at IS NULL`,
    ),
    selectConversation: db.prepare(
      'SELECT items FROM conversations WHERE gen_id = ? AND org_id = ? AND expires_at > ?',
    ),
    dropExpiredConversations: db.prepare('DELETE FROM conversations WHERE expires_at <= ?'),
    dropOrgConversations: db.prepare('DELETE FROM conversations WHERE org_id = ?'),
  };
}

/** Every statement and transaction of the store, prepared once per connection. */
export function prepareStatements(db: Database.Database) {
  const organizations = prepareOrganizationStatements(db);
  const keys = prepareKeyStatements(db);
  const conversations = prepareConversationStatements(db);
  return {
    ...organizations,
    ...keys,
    /**
     * Marks the organization deleted, revokes its keys and forgets its conversations (their text is the
     * deleted tenant's, and an organization created again under the id is another one), in one transaction.
     */
    deleteOrgAndKeys: db.transaction((id: string, now: string): boolean => {
      if (organizations.deleteOrg.run(now, id).changes === 0) return false;
      keys.revokeOrgKeys.run(now, id);
      conversations.dropOrgConversations.run(id);
      return true;
    }),
    ...prepareSpendStatements(db),
    records: new SqliteRecords(db),
    ...conversations,
    admin: prepareAdminStatements(db),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
