import { type LookupAddress, type LookupOptions, lookup as systemLookup } from 'node:dns';

/** What `net.connect` calls a lookup back with: one address and its family, or every address (`all`). */
type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The `lookup` option of `net.connect` and `tls.connect` (the shape of `dns.lookup` they call it with). */
export type NameLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/** How long a provider's resolved addresses are reused for new connections. */
export const NAME_LOOKUP_REUSE_MS = 5_000;

/** Answers kept at most (provider hosts are few; the bound only guards against an unexpected many). */
const MAX_KEPT = 256;

interface Answer {
  at: number;
  address: string | LookupAddress[];
  family: number | undefined;
}

/**
 * A `lookup` for upstream connections that shares name lookups. Node resolves every new connection's host name
 * with `getaddrinfo` on libuv's thread pool (four threads by default), one lookup per connection: a burst of
 * hundreds of new connections to one provider (streams opening at once, a pool refilling after the provider
 * closed its idle connections) queued hundreds of lookups there, each waiting for the resolver, and with them
 * the time to first byte of every request. Here, connections that need the same name while a lookup of it runs
 * wait for that one, and its answer serves new connections for `reuseMs` (far below the time to live of a
 * provider's DNS records). A failed lookup is passed to everyone who waited for it and never kept. Addresses
 * (IP literals) are never looked up: Node connects to them directly.
 */
export function sharedNameLookup(
  lookup: NameLookup = systemLookup as NameLookup,
  reuseMs = NAME_LOOKUP_REUSE_MS,
  now: () => number = Date.now,
): NameLookup {
  const running = new Map<string, LookupCallback[]>();
  const kept = new Map<string, Answer>();
  return (hostname, options, callback) => {
    // `all`, `family`, `hints` and the order change the answer, so they are part of the key.
    const key = `${hostname}\n${JSON.stringify(options)}`;
    const answer = kept.get(key);
    if (answer !== undefined && now() - answer.at < reuseMs) {
      process.nextTick(answerWith, callback, answer);
      return;
    }
    const waiting = running.get(key);
    if (waiting !== undefined) {
      waiting.push(callback);
      return;
    }
    const callbacks = [callback];
    running.set(key, callbacks);
    try {
      lookup(hostname, options, (error, address, family) => {
        running.delete(key);
        if (error) kept.delete(key);
        else {
          if (kept.size >= MAX_KEPT) kept.clear();
          kept.set(key, { at: now(), address, family });
        }
        for (const waiter of callbacks) {
          if (error) waiter(error, address, family);
          else answerWith(waiter, { at: 0, address, family });
        }
      });
    } catch (thrown) {
      // Thrown to this caller (bad options): nobody else waits on it, and the next caller asks again.
      running.delete(key);
      throw thrown;
    }
  };
}

/** Calls back with an answer; each caller gets its own copy of a list of addresses. */
function answerWith(callback: LookupCallback, answer: Answer): void {
  const { address, family } = answer;
  callback(null, typeof address === 'string' ? address : address.map((entry) => ({ ...entry })), family);
}
