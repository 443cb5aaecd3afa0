import type { KeyHasher } from '../auth/api-keys.js';
import type { Store } from '../store/store.js';
import { auditWriter, listAudit } from './audit.js';
import { keyOperations } from './key-operations.js';
import { organizationOperations } from './organization-operations.js';
import { recordOperations } from './record-operations.js';
import { skillOperations } from './skill-operations.js';

/** What the admin operations need: the store, the key secret's hash, the skills directory. */
export interface AdminOperationsDeps {
  store: Store;
  /** The gateway's keyed hash, asked for only when a key secret is made (create, rotate). */
  keyHasher: () => KeyHasher;
  /** The skills directory, asked for only by skill operations. */
  skillsDir: () => string;
  /**
   * Told after each change of organizations or keys, so that cached authentications are dropped and the change
   * applies to the next request (the gateway empties its authenticator's cache).
   */
  onKeysChanged?: () => void;
  /** Wall clock of the default report range (the current calendar month, UTC). */
  now?: () => Date;
}

/**
 * Everything operators do, in one module that the admin HTTP API and the admin command line both call, so they
 * never disagree: organizations, API keys (with their own limits; secrets answered once), skills, records,
 * spend reports and the audit log. Inputs arrive unchecked (`unknown`) and are validated here with the zod
 * schemas of `admin-schemas.ts`; failures are GatewayErrors (400, 404, 409) in the contract's error shape.
 * Every write names its actor (`admin-token:<fingerprint>`, `admin-cli`) and is written to the audit log.
 */
export function createAdminOperations(deps: AdminOperationsDeps) {
  const audit = auditWriter(deps.store);
  const changed = () => deps.onKeysChanged?.();
  return {
    ...organizationOperations({ store: deps.store, audit, changed }),
    ...keyOperations({ store: deps.store, keyHasher: deps.keyHasher, audit, changed }),
    ...skillOperations(deps.skillsDir, audit),
    ...recordOperations(deps.store, deps.now),
    /** The audit log, newest first: `{data: [{id, at, actor, action, target, before, after}], next_cursor}`. */
    listAudit: (query: unknown) => listAudit(deps.store, query),
  };
}

/** The admin operations (see `createAdminOperations`). */
export type AdminOperations = ReturnType<typeof createAdminOperations>;
