import type { Usage } from '../accounting/usage.js';
import type { ResolvedProvider } from '../catalog/catalog.js';
import type { CancelSignal } from '../http/cancellation.js';
import type { JsonObject } from '../json/json.js';
import type { PartStream } from './part-stream.js';

/**
 * The interface every provider adapter implements: pure translation between the gateway's canonical shapes
 * (OpenAI's chat completions, Responses, embeddings and images JSON) and one vendor's wire format, plus one
 * HTTP call through the injected client. Methods a vendor lacks are absent, never stubbed.
 */
export interface UpstreamCall {
  provider: ResolvedProvider;
  /** The provider's own name of the model. */
  upstreamModel: string;
  /** Aborts the upstream request (client gone, shutdown). */
  signal: CancelSignal;
  /** Time allowed until the upstream's first byte. */
  timeoutMs: number;
  /** Sent upstream as `x-request-id` where the vendor accepts it. */
  requestId: string;
  /** The model's largest output (catalog `max_tokens`), for vendors that require a `max_tokens`. */
  maxOutputTokens: number | undefined;
  /** The vendor model whose request rules apply, when `upstreamModel` does not say (config `rulesOf`). */
  rulesOf?: string | undefined;
  /** W3C trace context of the attempt's span (`traceparent`, `tracestate`), sent upstream when traced. */
  traceHeaders?: Readonly<Record<string, string>>;
  /**
   * The client gets Gemini's answer parts that chat has no field for (`executableCode` …) whole, from
   * `extra_content.google.parts` (the Gemini ingress): no warning says they are not carried.
   */
  relaysGeminiParts?: boolean;
}

/** A complete JSON answer in the canonical shape, with its usage normalised. */
export interface JsonResult {
  body: JsonObject;
  usage: Usage;
  /** Parameters the provider could not take, reported to the caller. */
  warnings: string[];
}

/**
 * A streamed chat answer: canonical `chat.completion.chunk` objects, and the usage once known. `raw` is the
 * upstream's exact JSON text of `chunk` when the two are the same (OpenAI-protocol pass-through): the chat
 * codec may then rewrite the text instead of serialising the object again. `text` is set only on a chunk
 * that carries nothing but choice 0's content delta, read without parsing: it is that delta (and `chunk` is
 * parsed only when first read). `rewritten`, on such a chunk read from its bytes, gives the chunk with
 * another id and model as a new head and the upstream's own bytes for the rest (nothing decoded or copied).
 */
export type ChatStreamPart =
  | {
      type: 'chunk';
      chunk: JsonObject;
      raw?: string;
      text?: string;
      /** The chunk's text with another id and model (JSON literals), where the adapter can write it so. */
      withIds?: (idJson: string, modelJson: string) => string;
      rewritten?: (idJson: string, modelJson: string) => [string, Uint8Array];
    }
  | { type: 'usage'; usage: Usage };

/** A chat stream part that carries a chunk. */
export type ChatChunkPart = Extract<ChatStreamPart, { type: 'chunk' }>;

/**
 * Consecutive content deltas of choice 0 read from one network read's bytes, as one part (`chatStreamRuns`;
 * see providers/openai/delta-runs.ts). Only the chat endpoint asks for them: it writes them on as bytes.
 */
export interface ContentDeltaRun {
  type: 'deltas';
  /** Every delta's content, joined. */
  readonly text: string;
  /** The run's SSE frames (`data: …\n\n` each) with another id and model (JSON literals). */
  frames(idJson: string, modelJson: string): string;
  /** The deltas one `chunk` part each. */
  parts(): ChatChunkPart[];
}

/** What `chatStreamRuns` streams: chat stream parts, and runs of content deltas. */
export type ChatWirePart = ChatStreamPart | ContentDeltaRun;

/**
 * A streamed Responses answer: the standard Responses events. Usage is read from the final event, unless the
 * producer attaches the exact usage in the gateway's convention (translators do: it keeps cache writes).
 */
export type ResponsesStreamPart = { type: 'event'; event: JsonObject; usage?: Usage };

export interface StreamResult<Part> {
  parts: PartStream<Part>;
  warnings: string[];
  /**
   * The usage the provider reported so far, where it reports counts while it streams (Anthropic's
   * `message_start` and `message_delta`, Gemini's `usageMetadata`): what a stream cut short is billed from.
   * The counts grow as the stream runs; the output count may trail the text already streamed.
   */
  usageSoFar?: () => Usage | undefined;
}

export interface ProviderAdapter {
  /** Chat completions; `body` is the caller's request with `model` set to the upstream name. */
  chat(body: JsonObject, call: UpstreamCall): Promise<JsonResult>;
  /** Streamed chat completions; resolves once the upstream accepted the request (before the first token). */
  chatStream(body: JsonObject, call: UpstreamCall): Promise<StreamResult<ChatStreamPart>>;
  /**
   * The same stream, where runs of plain content deltas may come as one `deltas` part each: for a consumer
   * that passes chat chunks on as they are (the chat endpoint). Adapters that have none lack it.
   */
  chatStreamRuns?(body: JsonObject, call: UpstreamCall): Promise<StreamResult<ChatWirePart>>;
  /** Native Responses API, where the vendor has one. */
  responses?(body: JsonObject, call: UpstreamCall): Promise<JsonResult>;
  responsesStream?(body: JsonObject, call: UpstreamCall): Promise<StreamResult<ResponsesStreamPart>>;
  /** Native compaction (`/responses/compact`): the `response.compaction` object, where the vendor has it. */
  compact?(body: JsonObject, call: UpstreamCall): Promise<JsonResult>;
  embed?(body: JsonObject, call: UpstreamCall): Promise<JsonResult>;
  generateImage?(body: JsonObject, call: UpstreamCall): Promise<JsonResult>;
}
