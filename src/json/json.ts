/**
 * Small guards for reading untyped JSON (upstream bodies, request bodies) without casts.
 */
export type JsonObject = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A non-negative finite number member, or 0. */
export function count(object: unknown, key: string): number {
  if (!isRecord(object)) return 0;
  const value = object[key];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

export function stringMember(object: unknown, key: string): string | undefined {
  if (!isRecord(object)) return undefined;
  const value = object[key];
  return typeof value === 'string' ? value : undefined;
}

export function recordMember(object: unknown, key: string): JsonObject | undefined {
  if (!isRecord(object)) return undefined;
  const value = object[key];
  return isRecord(value) ? value : undefined;
}

export function arrayMember(object: unknown, key: string): unknown[] | undefined {
  if (!isRecord(object)) return undefined;
  const value = object[key];
  return Array.isArray(value) ? value : undefined;
}

/** JSON.parse that returns undefined instead of throwing. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Orders strings by their UTF-16 code units, as `Array.prototype.sort` does by default. Used instead of
 * `localeCompare`, whose first call loads ICU's collation data: about 3 MB of resident memory, for ids and
 * names that are ASCII.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
