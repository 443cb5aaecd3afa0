import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { sqliteFilename } from '../store/open-store.js';
import { MIN_SECRET_BYTES } from './api-keys.js';

export interface KeySecretOptions {
  /** `GATEWAY_KEY_SECRET`: the secret itself (at least 32 characters). Wins over any file. */
  secret?: string;
  /** `GATEWAY_KEY_SECRET_FILE`: where the secret is kept (created on first start when missing). */
  file?: string;
  /** Decides the default file: next to a SQLite database, else `./data/key-secret`. */
  databaseUrl: string;
  warn: (message: string) => void;
}

/** Where the secret comes from, for the start-up log (never the secret). */
export interface KeySecret {
  secret: Buffer;
  source: string;
}

/**
 * The server secret API keys are hashed with. From `GATEWAY_KEY_SECRET` when set; else from a file
 * (`GATEWAY_KEY_SECRET_FILE`, by default `key-secret` beside the SQLite database or `./data/key-secret`),
 * generated with 32 random bytes and mode 0600 on first start. An in-memory SQLite database gets a secret as
 * short-lived as itself. Several instances sharing one database must share the secret.
 */
export function loadKeySecret(options: KeySecretOptions): KeySecret {
  if (options.secret !== undefined) {
    if (Buffer.byteLength(options.secret) < MIN_SECRET_BYTES) {
      throw new Error(`GATEWAY_KEY_SECRET must be at least ${MIN_SECRET_BYTES} characters long`);
    }
    return { secret: Buffer.from(options.secret, 'utf8'), source: 'GATEWAY_KEY_SECRET' };
  }
  const sqlite = sqliteFilename(options.databaseUrl);
  if (options.file === undefined && (sqlite === ':memory:' || sqlite === '')) {
    return { secret: randomBytes(MIN_SECRET_BYTES), source: 'memory (in-memory database)' };
  }
  const file = options.file ?? (sqlite ? join(dirname(resolve(sqlite)), 'key-secret') : './data/key-secret');
  const secret = readOrCreate(file, options.warn);
  if (sqlite === undefined && options.file === undefined) {
    options.warn(
      `API keys are hashed with the secret in ${file}; every instance sharing this database needs the same secret: set GATEWAY_KEY_SECRET (or GATEWAY_KEY_SECRET_FILE) on all of them`,
    );
  }
  return { secret, source: file };
}

function readOrCreate(file: string, warn: (message: string) => void): Buffer {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  try {
    // 'wx': never overwrite; two instances starting together keep whichever secret was written first.
    writeFileSync(file, `${randomBytes(MIN_SECRET_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) {
      throw new Error(`cannot create the API key secret file ${file}: ${messageOf(error)}`);
    }
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new Error(`cannot read the API key secret file ${file}: ${messageOf(error)}`);
  }
  if (Buffer.byteLength(text) < MIN_SECRET_BYTES) {
    throw new Error(`the API key secret file ${file} holds fewer than ${MIN_SECRET_BYTES} characters`);
  }
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
    warn(`the API key secret file ${file} is readable by other users; chmod 600 it`);
  }
  return Buffer.from(text, 'utf8');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
