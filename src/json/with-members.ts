/**
 * `{ ...base, ...extra }`: a new object with base's own members, then extra's (extra wins), in that order.
 *
 * Why not the literal: on Node 20 (V8 11.3) an object literal with members after a spread gets a hidden class
 * of its own for every object it makes (about 1 µs each, 2 µs for a handful of headers, and a map in the old
 * generation that only a full collection frees), where `Object.assign` into a fresh object shares one. Node 22
 * and 24 make the literal fast; this stays within tens of nanoseconds there. Use it on the request path.
 *
 * A member named `__proto__` (JSON.parse makes one from a client's text) takes the literal: assigning it
 * would set the new object's prototype instead of copying the member.
 */
export function withMembers<A extends object, B extends object>(base: A, extra: B): Omit<A, keyof B> & B {
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(extra, '__proto__')) return { ...base, ...extra };
  return Object.assign({}, base, extra);
}
