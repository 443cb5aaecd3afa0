import { badRequestQuoting, quotingClient } from '../errors/client-quote.js';
import { badRequest, GatewayError } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { isRecord, type JsonObject, stringMember } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { Run } from '../pipeline/run.js';

/** Output items worth replaying to any provider (reasoning items are vendor-specific and left out). */
const REPLAYABLE = new Set(['message', 'function_call']);

/** A Responses `input` as a list of items (a string is one user message). */
export function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/**
 * The conversation a socket of the Responses WebSocket mode keeps in memory: its last completed response's
 * input and replayable output, so that the next turn can continue it with `previous_response_id`.
 */
export interface SocketConversation {
  /** The items of `responseId` when it is the socket's last completed response. */
  recall(responseId: string): unknown[] | undefined;
  remember(responseId: string, items: unknown[]): void;
}

/** The Open Responses WebSocket error for a `previous_response_id` the socket (and the store) do not have. */
export function previousResponseNotFound(previousId: string): GatewayError {
  const { message, recordMessage } = quotingClient(
    (quote) => `Previous response with id '${quote(previousId)}' not found.`,
  );
  return new GatewayError(message, {
    status: 400,
    code: 'BAD_REQUEST',
    type: 'invalid_request_error',
    param: 'previous_response_id',
    specCode: 'previous_response_not_found',
    recordMessage,
  });
}

/**
 * `previous_response_id` over a WebSocket: the socket's own last response first (kept in memory, whatever
 * `store` and `server.conversationState` say), else the gateway's store when conversation state is on; else
 * `previous_response_not_found`.
 */
export async function continueOnSocket(
  run: Run,
  request: JsonObject,
  socket: SocketConversation,
): Promise<JsonObject> {
  const previousId = request.previous_response_id;
  if (typeof previousId !== 'string') return resumeConversation(run, request);
  const kept = socket.recall(previousId);
  const { previous_response_id: _previous, ...rest } = request;
  if (kept) return withMembers(rest, { input: [...kept, ...inputItems(request.input)] });
  if (!run.deps.config.server.conversationState.enabled) throw previousResponseNotFound(previousId);
  return resumeConversation(run, request, previousResponseNotFound);
}

/**
 * `previous_response_id` against the gateway's own store: the earlier conversation is put in front of this
 * request's input, whichever provider served it, and the id is not sent upstream (providers do not know it).
 */
export async function resumeConversation(
  run: Run,
  request: JsonObject,
  notFound: (previousId: string) => GatewayError = storedNotFound,
): Promise<JsonObject> {
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
  if (!items) throw notFound(previousId);
  const { previous_response_id: _previous, ...rest } = request;
  return withMembers(rest, { input: [...items, ...inputItems(request.input)] });
}

/**
 * Keeps the conversation after a successful answer when the operator enabled it, unless the request said
 * `store: false` or asked for zero data retention. What is kept is the request after redaction but before
 * the optimizations of this turn (`conversation`: what one turn left out is not lost to the next), up to
 * `maxBytes` as JSON: each continuation sends and keeps the whole conversation again, so without a bound a
 * few tiny requests after a large one would grow what is sent upstream and stored without end.
 */
export async function keepConversation(
  run: Run,
  conversation: JsonObject,
  output: unknown[],
  settings: GatewaySettings,
): Promise<void> {
  const { conversationState } = run.deps.config.server;
  if (!conversationState.enabled || conversation.store === false || settings.zdr === true) return;
  const items = conversationItems(conversation, output);
  const itemsJson = JSON.stringify(items);
  const bytes = Buffer.byteLength(itemsJson);
  if (bytes > conversationState.maxBytes) {
    run.warnings.push(
      `the conversation (${bytes} bytes) is larger than server.conversationState.maxBytes ` +
        `(${conversationState.maxBytes}) and was not kept: previous_response_id will not find this response`,
    );
    return;
  }
  await run.deps.store.saveConversation({
    genId: run.genId,
    orgId: run.principal.org.id,
    // A request still running when its organization is deleted (or deleted and created again) keeps nothing.
    orgCreatedAt: run.principal.org.createdAt,
    items,
    itemsJson,
    expiresAt: new Date(Date.now() + conversationState.ttlHours * 3_600_000).toISOString(),
  });
}

/** What a continuation replays: the turn's input (redacted), then the answer's replayable output items. */
export function conversationItems(conversation: JsonObject, output: unknown[]): unknown[] {
  const replayable = output.filter(
    (item) => isRecord(item) && REPLAYABLE.has(stringMember(item, 'type') ?? ''),
  );
  return [...inputItems(conversation.input), ...replayable.map(withoutStatus)];
}

const storedNotFound = (previousId: string): GatewayError =>
  badRequestQuoting(
    (quote) => `Previous response ${quote(previousId)} not found or expired.`,
    'previous_response_id',
  );

/** Output items replayed as input must not carry the `status` of the earlier answer. */
function withoutStatus(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const { status: _status, ...rest } = item;
  return rest;
}
