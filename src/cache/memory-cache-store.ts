import type { CacheStore } from './cache-store.js';

/** Bytes counted per entry besides its key and value (the map entry, the record, the timestamps). */
const ENTRY_OVERHEAD_BYTES = 96;

export interface MemoryCacheStoreOptions {
  /** Bytes of all entries at most (keys, values and overhead); the least recently used go first. */
  maxBytes: number;
  /** Largest entry kept, bytes. */
  maxEntryBytes: number;
  /** Monotonic milliseconds (expiry). */
  now: () => number;
}

interface Entry {
  value: string;
  bytes: number;
  expiresAt: number;
}

/**
 * Cached answers in this process: a least-recently-used map bounded by bytes (UTF-8 size of key and value plus
 * a fixed overhead per entry), entries expiring after their TTL. A read moves the entry to the young end.
 */
export class MemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, Entry>();
  private used = 0;

  constructor(private readonly options: MemoryCacheStoreOptions) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.options.now()) {
      this.used -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value) + ENTRY_OVERHEAD_BYTES;
    this.remove(key);
    if (bytes > this.options.maxEntryBytes || bytes > this.options.maxBytes || ttlMs <= 0) return;
    this.entries.set(key, { value, bytes, expiresAt: this.options.now() + ttlMs });
    this.used += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.used <= this.options.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= entry.bytes;
    }
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.used = 0;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.used -= entry.bytes;
  }
}
