import type { Store } from '../store/store.js';
import type { SpendSource } from './limiter.js';

/**
 * The budgets a limiter keeps, each under one account name: an organization's cap under its id, an API key's
 * own cap under `key:` + the key id. Organization ids are slugs (letters, digits, `.`, `_`, `-`), so the two
 * never collide.
 */
const KEY_ACCOUNT = 'key:';

/** The account of an organization's monthly cap. */
export const orgAccount = (orgId: string): string => orgId;

/** The account of an API key's own monthly cap. */
export const keyAccount = (keyId: string): string => `${KEY_ACCOUNT}${keyId}`;

/** The settled spend of an account, read from the store: the organization's or the key's own. */
export function storeSpendSource(store: Pick<Store, 'getMonthlySpend' | 'getKeyMonthlySpend'>): SpendSource {
  return (account, month) =>
    account.startsWith(KEY_ACCOUNT)
      ? store.getKeyMonthlySpend(account.slice(KEY_ACCOUNT.length), month)
      : store.getMonthlySpend(account, month);
}
