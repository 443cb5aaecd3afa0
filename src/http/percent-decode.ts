/** A percent-encoded text decoded (URL paths, header values, URL passwords), or as it is when it does not decode. */
export function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
