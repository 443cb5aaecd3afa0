import type { Usage } from '../accounting/usage.js';
import type { RequestKind } from '../codecs/request-kind.js';
import type { TextMeter } from '../codecs/shared/streamed-text.js';
import type { UsageMeta } from '../codecs/shared/usage-body.js';
import type { EndpointKind } from '../config/config-schema.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { RequestContext } from '../http/request-context.js';
import type { JsonObject } from '../json/json.js';
import type { GeneratedImage } from '../preparation/image-fallback.js';
import type {
  JsonResult,
  ProviderAdapter,
  StreamResult,
  UpstreamCall,
} from '../providers/provider-adapter.js';
import type { Run } from './run.js';
import type { Frame } from './transport.js';

/** What every endpoint's parse step returns: the request in its canonical shape and its `gateway` settings. */
export interface ParsedRequest {
  /** The canonical request (chat completions, Responses, embeddings or images JSON). */
  body: JsonObject;
  settings: GatewaySettings;
  stream: boolean;
}

/** Usage and cost of the answer, with the id and model slug it is sent under. */
export interface AnswerMeta extends UsageMeta {
  genId: string;
  model: string;
}

/** What an answer is made from: the parsed request and what was actually sent upstream. */
export interface AnswerScope<R extends ParsedRequest> {
  run: Run;
  request: R;
  /** The prepared request as sent (redacted, optimized, with skills and plan), before the model rename. */
  sent: JsonObject;
  /** The request redacted but not optimized (see `Prepared`): what conversation state keeps. */
  conversation: JsonObject;
}

/** Writes an error answer before anything was streamed (the contract's shape, or an ingress's own). */
export type ErrorWriter = (
  res: RequestContext['res'],
  error: GatewayError,
  headers: Record<string, string>,
) => void;

/** Accounts the streamed answer's usage (once; later calls return the same figures). */
export type Settle = (usage: Usage | undefined) => AnswerMeta;

/**
 * What one endpoint supplies to the pipeline: its codec. Everything else (authentication, limits,
 * preparation, reservation, dispatch with fallback, accounting, the record) is the pipeline's.
 */
export interface Endpoint<R extends ParsedRequest, Part> {
  /** Which catalog models (`api_compatibility`) and which provider capability serve it. */
  kind: EndpointKind;
  /**
   * Conversation endpoints name their request shape: they get redaction, tags, the image fallback,
   * optimizations, skills and planning. Others only choose a model and its providers.
   */
  conversation?: RequestKind;
  /**
   * Its user turns carry their tool results (Anthropic Messages: tool_result blocks and text in one message,
   * which the translation to chat splits into tool messages and a user message): history compression keeps
   * the results before the latest user message as part of it.
   */
  toolResultsInUserTurn?: boolean;
  /**
   * Endpoints whose complete answers the response cache may keep name themselves here (part of the cache key:
   * answers of two endpoints differ in shape). Absent: never cached.
   */
  cacheName?: string;
  /**
   * Tokens the gateway itself may add to the prompt it sends (its own instructions), beyond the request's
   * body: reserved against the cap with it.
   */
  addedPromptTokens?: number;
  /**
   * The provider keeps the answer unless the body says `store: false` (OpenAI's Responses API): a
   * zero-data-retention request is sent with it (privacy/zero-retention.ts).
   */
  storesByDefault?: boolean;
  /** Headers every answer of this endpoint carries (e.g. Anthropic's `request-id`). */
  headers?: (run: Run) => Record<string, string>;
  /** Errors before anything was streamed; default: the contract's shape. */
  writeError?: ErrorWriter;
  /** The parse step: validates the body (and the `gateway` members this endpoint takes). */
  parse(body: unknown, run: Run): R | Promise<R>;

  /** One plain provider call with the prepared body (model already renamed to the provider's). */
  call(adapter: ProviderAdapter, body: JsonObject, call: UpstreamCall): Promise<JsonResult>;
  /** The answer's body from the provider's result. */
  answer(result: JsonResult, meta: AnswerMeta, scope: AnswerScope<R>): JsonObject | Promise<JsonObject>;
  /** Streaming, for endpoints that stream. */
  stream?: StreamCodec<R, Part>;
  /** The image fallback's answer as a plain body (conversation endpoints that can carry an image). */
  imageAnswer?(image: GeneratedImage, meta: AnswerMeta): JsonObject;
}

/** How an endpoint streams: opening the provider's stream of parts, and framing them for the client. */
export interface StreamCodec<R extends ParsedRequest, Part> {
  open(
    adapter: ProviderAdapter,
    body: JsonObject,
    call: UpstreamCall,
    scope: StreamScope<R>,
  ): Promise<StreamResult<Part>>;
  /** The frames of one stream; created when the stream opens, before routing (keep-alives flow meanwhile). */
  framer(scope: StreamScope<R>): StreamFramer<Part>;
  /**
   * True for a part that only announces the answer (a role chunk, `message_start`, `response.created`): the
   * attempt is committed to at the first part that is not, so a failure after such parts may still fall back
   * (see `openStream`).
   */
  preliminary?(part: Part): boolean;
}

/** What a stream's framer can read as the request proceeds. */
export interface StreamScope<R extends ParsedRequest> {
  run: Run;
  request: R;
  /** The model slug answers carry (known once a model was chosen). */
  model(): string;
  /** The prepared request as sent, once known. */
  sent(): JsonObject;
  /** The request redacted but not optimized (see `Prepared`), once known. */
  conversation(): JsonObject;
  /** Meters a stream's generated text (for billing a stream cut short). */
  meter(): TextMeter;
}

export interface StreamFramer<Part> {
  /** The frames for one part ('' for none); `settle` accounts the usage when the part carries it. */
  frame(part: Part, settle: Settle): Frame | Promise<Frame>;
  /** Closing frames after the last part (the usage chunk and `[DONE]`, say). */
  end(settle: Settle): string;
  /** Frames reporting a failure after the stream started; the stream ends after them. */
  error(error: GatewayError): string;
  /**
   * A failure the answer itself reported and the stream passed on whole (a native upstream's
   * `response.failed`): the request is recorded as failed, though the stream ended as the protocol says.
   */
  failed?(): GatewayError | undefined;
  /** The whole stream of an image fallback's answer (conversation endpoints that can carry an image). */
  image?(image: GeneratedImage, meta: AnswerMeta): string;
  /**
   * What reached the client so far, for billing a stream cut short (the client went away, the upstream
   * failed): the provider's usage if it came, else the generated text streamed (content, reasoning, tool
   * call arguments), which the pipeline counts with the tokenizer.
   */
  partial(): StreamedSoFar;
}

export interface StreamedSoFar {
  usage: Usage | undefined;
  /** The generated text streamed, counted as it passed. */
  text: TextMeter;
}
