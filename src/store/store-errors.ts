/**
 * The two ways a store write can fail, so that callers (the record queue) know whether to wait or to isolate:
 * the store is unreachable or busy (retry later, keep everything), or the data itself was refused (retrying
 * the same rows will fail again).
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** Rows the store refuses whatever its state: an invalid value, a constraint. Retrying them cannot help. */
export class InvalidRecordError extends Error {
  override name = 'InvalidRecordError';
}

/** The message of an unknown thrown value, for log lines. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A record query the store cannot answer as asked: an invalid or foreign cursor, a time that is not a date,
 * a page size or grouping out of range. The caller's fault (an HTTP API answers 400), never a store failure.
 */
export class InvalidQueryError extends Error {
  override name = 'InvalidQueryError';

  /** The query parameter at fault when the store can tell (`cursor`), for the 400's `param`. */
  constructor(
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

/**
 * A key was to be added to an organization that does not exist or is deleted (perhaps by a deletion that
 * committed meanwhile): nothing was written. An admin API answers 404.
 */
export class OrganizationMissingError extends Error {
  override name = 'OrganizationMissingError';
}
