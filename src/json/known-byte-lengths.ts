/**
 * The UTF-8 byte length of a long string value, noted on the object or array that holds it when the parser
 * already knows it (a long string cut out of the body's bytes: its bytes between the quotes, no escapes), so
 * that the worst-case bound of a prompt (`accounting/worst-case.ts`) does not walk a megabyte of text again to
 * count what `Buffer.byteLength` would (about 0.2 ms a MiB), with its first characters. Kept as a non-enumerable symbol property, which
 * JSON, spreads, `Object.keys` and copies never see; a copy of the holder simply has no note.
 */
const BYTE_LENGTHS = Symbol('utf8 byte lengths');

type Noted = { [BYTE_LENGTHS]?: Map<string | number, KnownText & { value: string }> };

/** Notes that `holder[key]`, the string `value`, is `bytes` long in UTF-8 and starts with `head`. */
export function noteByteLength(
  holder: object,
  key: string | number,
  value: string,
  bytes: number,
  head: string,
): void {
  const noted = holder as Noted;
  let lengths = noted[BYTE_LENGTHS];
  if (lengths === undefined) {
    lengths = new Map();
    Object.defineProperty(holder, BYTE_LENGTHS, { value: lengths });
  }
  lengths.set(key, { value, bytes, head });
}

/** What the parser noted about a long string: its UTF-8 byte length and its first 32 characters. */
export interface KnownText {
  bytes: number;
  head: string;
}

/**
 * What was noted about `value`, read as `holder[key]`, while that member still holds the very string it was
 * noted for (a holder changed since reads as not noted). The head lets a look at a long string's start read
 * none of the rest (the string may be a rope of pieces, which a search of it would first join).
 */
export function knownText(holder: object, key: string | number, value: string): KnownText | undefined {
  const note = (holder as Noted)[BYTE_LENGTHS]?.get(key);
  return note !== undefined && note.value === value ? note : undefined;
}
