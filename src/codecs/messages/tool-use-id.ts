import { readSignedCallId, signedCallId } from '../shared/thought-signature.js';

/**
 * Tool-use ids on the Messages ingress. Anthropic clients expect `toolu_…` ids, while OpenAI-compatible and
 * Gemini upstreams name their calls otherwise (`call_abc`). An upstream id that is not in Anthropic's form
 * goes to the client encoded in one (`toolu_gw_` + base64url of the id), and comes back to its upstream form
 * when the client returns it (`tool_use` in history, `tool_result.tool_use_id`): stateless, no store, any
 * gateway instance decodes it. Anthropic's own ids (`toolu_01…`) pass unchanged both ways. A call with a Gemini
 * thought signature goes out as `toolu_gs_…`, which carries the signature too (see shared/thought-signature.ts),
 * so that the call goes back to Gemini signed.
 * Reference: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 */

const PREFIX = 'toolu_';
const ENCODED_PREFIX = 'toolu_gw_';
const SIGNED_PREFIX = 'toolu_gs_';

/** The id a client sees for an upstream tool-call id (and the call's thought signature, if any). */
export function toClientToolUseId(upstreamId: string, thoughtSignature?: string): string {
  if (thoughtSignature !== undefined) return signedCallId(SIGNED_PREFIX, upstreamId, thoughtSignature);
  if (upstreamId.startsWith(PREFIX) && /^[A-Za-z0-9_-]+$/.test(upstreamId)) return upstreamId;
  return ENCODED_PREFIX + Buffer.from(upstreamId, 'utf8').toString('base64url');
}

/** The upstream tool call of an id a client sent back: its id, and its thought signature if it had one. */
export function toUpstreamToolCall(clientId: string): { id: string; thoughtSignature?: string } {
  const signed = readSignedCallId(SIGNED_PREFIX, clientId);
  if (signed) return { id: signed.id, thoughtSignature: signed.signature };
  if (!clientId.startsWith(ENCODED_PREFIX)) return { id: clientId };
  const encoded = clientId.slice(ENCODED_PREFIX.length);
  const decoded = Buffer.from(encoded, 'base64url').toString('utf8');
  // Only what `toClientToolUseId` wrote decodes back exactly; anything else is someone else's id.
  const ours = decoded !== '' && Buffer.from(decoded, 'utf8').toString('base64url') === encoded;
  return { id: ours ? decoded : clientId };
}

/** The upstream tool-call id of an id a client sent back; ids the gateway did not encode pass unchanged. */
export const toUpstreamToolCallId = (clientId: string): string => toUpstreamToolCall(clientId).id;
