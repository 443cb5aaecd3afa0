import { DatabaseError } from 'pg';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * PostgreSQL text cannot hold U+0000 (SQLite's can): no id, name or value stored there contains it, so a
 * lookup by such a text finds nothing without asking the server, which would refuse the parameter.
 */
export function holdsNul(...texts: (string | undefined)[]): boolean {
  return texts.some((text) => text?.includes('\u0000') === true);
}

/**
 * The error a PostgreSQL refusal of the caller's text becomes: SQLSTATE 22021 (a character not in the
 * encoding, U+0000 in practice) is the caller's fault, 400 BAD_REQUEST, never a 500. A safety net behind the
 * validation of ids, names, filters and cursors; anything else is returned as it came.
 */
export function callerRefusal(error: unknown): unknown {
  if (!(error instanceof DatabaseError && error.code === '22021')) return error;
  return new GatewayError('A value holds a character that cannot be stored (U+0000).', {
    status: 400,
    code: 'BAD_REQUEST',
    type: 'invalid_request_error',
    cause: error,
  });
}

/** Rejects with `callerRefusal` of what `work` rejected with. */
export async function refusingNul<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw callerRefusal(error);
  }
}
