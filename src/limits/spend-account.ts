import type { Store } from '../store/store.js';
import type { SpendSource } from './limiter.js';

/**
 * The budgets a limiter keeps, each under one account name: an organization's cap under its id and, when
 * given, `@` + its `createdAt`; an API key's own cap under `key:` + the key id. Organization ids are slugs
 * (letters, digits, `.`, `_`, `-`), so none of them collide.
 */
const KEY_ACCOUNT = 'key:';
const CREATED = '@';

/**
 * The account of an organization's monthly cap. With `createdAt`, each organization created under the id has
 * an account of its own, so an organization deleted and created again starts the month with nothing of the
 * deleted one's spend (counters of every limiter instance, and Redis', are per account).
 */
export const orgAccount = (orgId: string, createdAt?: string): string =>
  createdAt === undefined ? orgId : `${orgId}${CREATED}${createdAt}`;

/** The account of an API key's own monthly cap. */
export const keyAccount = (keyId: string): string => `${KEY_ACCOUNT}${keyId}`;

/**
 * The settled spend of an account, read from the store: the organization's (as created last: the store counts
 * no record from before its `createdAt`) or the key's own.
 */
export function storeSpendSource(store: Pick<Store, 'getMonthlySpend' | 'getKeyMonthlySpend'>): SpendSource {
  return (account, month) =>
    account.startsWith(KEY_ACCOUNT)
      ? store.getKeyMonthlySpend(account.slice(KEY_ACCOUNT.length), month)
      : store.getMonthlySpend(account.split(CREATED, 1)[0] ?? account, month);
}
