import { badRequest } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { isRecord, type JsonObject, stringMember } from '../json/json.js';
import type { Run } from '../pipeline/run.js';

/** Output items worth replaying to any provider (reasoning items are vendor-specific and left out). */
const REPLAYABLE = new Set(['message', 'function_call']);

/** A Responses `input` as a list of items (a string is one user message). */
export function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/**
 * `previous_response_id` against the gateway's own store: the earlier conversation is put in front of this
 * request's input, whichever provider served it, and the id is not sent upstream (providers do not know it).
 */
export async function resumeConversation(run: Run, request: JsonObject): Promise<JsonObject> {
  const previousId = request.previous_response_id;
  if (previousId === undefined || previousId === null) return request;
  if (typeof previousId !== 'string')
    throw badRequest('previous_response_id: must be a string', 'previous_response_id');
  if (!run.deps.config.server.conversationState.enabled) {
    throw badRequest(
      'previous_response_id needs conversation state, which this gateway does not keep ' +
        '(the operator can enable server.conversationState); send the whole conversation in input instead.',
      'previous_response_id',
    );
  }
  const items = await run.deps.store.getConversation(previousId, run.principal.org.id);
  if (!items)
    throw badRequest(`Previous response ${previousId} not found or expired.`, 'previous_response_id');
  const { previous_response_id: _previous, ...rest } = request;
  return { ...rest, input: [...items, ...inputItems(request.input)] };
}

/**
 * Keeps the conversation after a successful answer when the operator enabled it, unless the request said
 * `store: false` or asked for zero data retention. What is kept is what was sent (after redaction).
 */
export async function keepConversation(
  run: Run,
  sent: JsonObject,
  output: unknown[],
  settings: GatewaySettings,
): Promise<void> {
  const { conversationState } = run.deps.config.server;
  if (!conversationState.enabled || sent.store === false || settings.zdr === true) return;
  const replayable = output.filter(
    (item) => isRecord(item) && REPLAYABLE.has(stringMember(item, 'type') ?? ''),
  );
  await run.deps.store.saveConversation({
    genId: run.genId,
    orgId: run.principal.org.id,
    items: [...inputItems(sent.input), ...replayable.map(withoutStatus)],
    expiresAt: new Date(Date.now() + conversationState.ttlHours * 3_600_000).toISOString(),
  });
}

/** Output items replayed as input must not carry the `status` of the earlier answer. */
function withoutStatus(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const { status: _status, ...rest } = item;
  return rest;
}
