import { type JsonObject, recordMember, stringMember } from '../../json/json.js';

/**
 * Gemini's thought signatures on tool calls. The Gemini adapter puts a `functionCall` part's signature on the
 * chat tool call as `extra_content.google.thought_signature` (the field Google's own OpenAI-compatible
 * endpoint uses) and reads it back from there; Gemini 3 wants it back on the next turn. Chat clients return
 * `extra_content` as they got it. The Messages and Responses protocols have no place for it, but their
 * clients always return a call's id (`tool_use.id`, `call_id`), so the id carries it: `<prefix>` and the
 * base64url of `[id, signature]` as JSON. Stateless: any gateway instance reads it back.
 * Reference: https://ai.google.dev/gemini-api/docs/thought-signatures
 */

/** The thought signature of a chat tool call (or of one streamed tool-call delta), if it has one. */
export function thoughtSignatureOf(toolCall: unknown): string | undefined {
  const signature = stringMember(
    recordMember(recordMember(toolCall, 'extra_content'), 'google'),
    'thought_signature',
  );
  return signature === '' ? undefined : signature;
}

/** The `extra_content` of a chat tool call that carries `signature`. */
export function signatureContent(signature: string): JsonObject {
  return { google: { thought_signature: signature } };
}

/** An id for a client that carries the upstream call id and its signature. */
export function signedCallId(prefix: string, id: string, signature: string): string {
  return prefix + Buffer.from(JSON.stringify([id, signature]), 'utf8').toString('base64url');
}

/** The upstream call id and signature of an id `signedCallId` made with `prefix`; undefined for any other. */
export function readSignedCallId(
  prefix: string,
  clientId: string,
): { id: string; signature: string } | undefined {
  if (!clientId.startsWith(prefix)) return undefined;
  const encoded = clientId.slice(prefix.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
  let pair: unknown;
  try {
    pair = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(pair) || pair.length !== 2) return undefined;
  const [id, signature] = pair as unknown[];
  if (typeof id !== 'string' || typeof signature !== 'string' || id === '' || signature === '')
    return undefined;
  return { id, signature };
}
