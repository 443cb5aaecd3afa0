const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * True when the JSON text in `bytes` (UTF-8) nests arrays and objects deeper than `maxDepth`. A single scan of
 * the raw bytes, before parsing: brackets inside strings are skipped with a native `indexOf` to the closing
 * quote, so long strings (base64 images) cost next to nothing. Malformed text is not judged here: JSON.parse
 * rejects it afterwards. Parsing and later walks of a body that passed are then bounded in depth.
 */
export function exceedsJsonDepth(bytes: Uint8Array, maxDepth: number): boolean {
  // Deeper than maxDepth needs more than maxDepth opening brackets.
  if (bytes.length <= maxDepth) return false;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let depth = 0;
  for (let index = 0; index < buffer.length; index++) {
    const byte = buffer[index];
    if (byte === QUOTE) {
      index = closingQuote(buffer, index);
      if (index < 0) return false;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth++;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** Index of the quote that closes the string opened at `open`, or -1 when the text ends first. */
function closingQuote(buffer: Buffer, open: number): number {
  let index = buffer.indexOf(QUOTE, open + 1);
  while (index >= 0) {
    let backslashes = 0;
    while (buffer[index - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return index;
    index = buffer.indexOf(QUOTE, index + 1);
  }
  return -1;
}
