import { z } from 'zod';
import { parseTrustedProxy } from '../http/client-address.js';

/**
 * The `server` section of the config file (contract §2): bounds of the HTTP edge, its connections and
 * timeouts, the heap, and Responses WebSocket mode. Part of `configSchema` (config-schema.ts).
 */

/** Responses WebSocket mode: every bound of a socket (README "WebSocket mode"). */
const webSocketSchema = z.strictObject({
  /** `false`: upgrades on `/v1/responses` are refused (404), as on any other path. */
  enabled: z.boolean().default(true),
  /** Largest client message (one `response.create`), bytes; a larger one closes the socket with 1009. */
  maxMessageBytes: z
    .number()
    .int()
    .min(1_024)
    .max(1024 * 1024 * 1024)
    .default(20 * 1024 * 1024),
  /** A socket with no response running that receives nothing for this long is closed (1000). */
  idleTimeoutMs: z.number().int().min(100).max(86_400_000).default(300_000),
  /** Open sockets at most (all keys); further upgrades get 429 `websocket_connection_limit_reached`. */
  maxSockets: z.number().int().min(1).max(1_000_000).default(1_000),
  /**
   * Open sockets at most per organization (all its keys), so that one organization cannot hold every socket
   * of `maxSockets`; further upgrades of it get 429 `websocket_connection_limit_reached`.
   */
  maxSocketsPerOrganization: z.number().int().min(1).max(1_000_000).default(100),
  /** A socket's lifetime; past it, the next `response.create` gets `websocket_connection_limit_reached`. */
  maxConnectionMs: z.number().int().min(1_000).max(86_400_000).default(3_600_000),
});

/** The `server` section without its cross-key check; `configSchema` takes its defaults from it. */
export const serverSchema = z.strictObject({
  /** Largest accepted request body. */
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /**
   * Request body bytes the process holds at once: a body past 64 KiB counts from then until its answer ends,
   * and one that would pass this gets 503 with `retry-after`. Default: a sixteenth of V8's heap limit, and at
   * least `maxBodyBytes` (http/body-budget.ts).
   */
  maxBodyBytesInFlight: z.number().int().positive().optional(),
  /** Deepest nesting of arrays and objects accepted in a request body (checked before parsing). */
  maxJsonDepth: z.number().int().min(8).max(10_000).default(100),
  /**
   * Most JSON values (arrays, objects and the items in them) accepted in a request body or WebSocket message,
   * checked before parsing: a body of tiny values (`[{},{},…]`) parses to some 20 times its size in heap.
   * Numbers in long arrays of numbers only (embedding vectors, token ids) are not counted.
   */
  maxJsonValues: z.number().int().min(1_000).max(100_000_000).default(1_000_000),
  /** A connection must have sent its request headers within this (slowloris, silent sockets). */
  headersTimeoutMs: z.number().int().positive().default(30_000),
  /** A request, body included, must have arrived within this; the response is not bounded by it. */
  requestTimeoutMs: z.number().int().positive().default(300_000),
  /** An idle keep-alive connection is closed after this; keep it above a load balancer's idle timeout. */
  keepAliveTimeoutMs: z.number().int().positive().default(65_000),
  /**
   * How far V8 may grow its heap past what the last full collection kept, in percent (V8's
   * `--heap-growing-percent`, set at start). Bursts of garbage (streams flowing, large bodies) are then
   * collected before the heap doubles, at the price of more frequent full collections. 0 leaves V8's own
   * heuristic (growth by 1.1 to 4 times). Default: 30 on Node 20 and 22, 0 on Node 24 (app/heap-growth.ts).
   */
  heapGrowthPercent: z.number().int().min(0).max(300).optional(),
  /**
   * The least room, in MB, the heap gets past what the last full collection kept when
   * `heapGrowthPercent` is in force: on a small heap the factor is raised (up to 300 %) until there is this
   * much, so a gateway at rest is not collected in full every few requests. 0 applies the percentage alone.
   */
  heapHeadroomMb: z.number().int().min(0).max(4096).default(16),
  /**
   * Loads the tokenizer before listening (about 0.2 s of start-up and 40 MB of memory) instead of on first
   * use (a count, a stream cut off before its usage), where loading it holds the event loop as long while
   * requests are in flight.
   */
  preloadTokenizer: z.boolean().default(false),
  /** Open client connections at most; sockets beyond it are closed as soon as they are accepted. */
  maxConnections: z.number().int().positive().default(1_000),
  /**
   * Open connections to one provider origin at most (one request each: HTTP/1.1 without pipelining); a
   * request beyond it waits for a connection, and the wait counts toward its time to first byte. Default:
   * `maxConnections`, so that no request waits while the gateway accepts clients (a model's stream holds its
   * connection for as long as it runs).
   */
  maxUpstreamConnections: z.number().int().positive().max(1_000_000).optional(),
  /** Failed authentications per client address: `burst` in `windowSeconds`, then 429 for a window. */
  authFailures: z
    .strictObject({
      burst: z.number().int().positive().default(20),
      windowSeconds: z.number().int().positive().default(10),
      /** Client addresses tracked at most (the oldest are forgotten first). */
      maxAddresses: z.number().int().positive().default(10_000),
    })
    .default({ burst: 20, windowSeconds: 10, maxAddresses: 10_000 }),
  /**
   * Reverse proxies and load balancers in front of the gateway: IP addresses and CIDR ranges (IPv4, IPv6).
   * When the TCP peer is one of them, the client address (of the failed-authentication throttles) is the
   * right-most `X-Forwarded-For` entry that is not; empty (the default): the TCP peer, headers ignored.
   */
  trustedProxies: z
    .array(
      z.string().superRefine((entry, ctx) => {
        if (parseTrustedProxy(entry) !== undefined) return;
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(entry)} is not an IP address or CIDR range (such as 10.0.0.0/8 or fd00::/8)`,
        });
      }),
    )
    .default([]),
  /** How long `GET /health/ready` waits for each dependency before calling it down. */
  healthCheckTimeoutMs: z.number().int().positive().default(1_000),
  /** SIGTERM grace period for in-flight requests and streams. */
  shutdownGraceMs: z.number().int().nonnegative().default(10_000),
  /** Interval of `: keep-alive` comments while a stream waits for its first token. */
  keepAliveIntervalMs: z.number().int().positive().default(2_000),
  /** Default time to the first byte of an upstream answer, when a provider sets no `timeoutMs`. */
  upstreamTimeoutMs: z.number().int().positive().default(60_000),
  /** A stream whose client read nothing for this long is ended and its upstream cancelled. */
  stalledClientTimeoutMs: z.number().int().positive().default(120_000),
  /** Default silence allowed between two bytes of an upstream answer, when a provider sets no `idleTimeoutMs`. */
  upstreamIdleTimeoutMs: z.number().int().positive().default(60_000),
  /** Largest upstream answer body; larger ones are cut off as they arrive and fail over (502 when none is left). */
  maxUpstreamResponseBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /**
   * Keep Responses conversations (prompt and completion text) so that `previous_response_id` works. Off by
   * default: the gateway stores no text unless the operator turns this on.
   */
  conversationState: z
    .strictObject({
      enabled: z.boolean().default(false),
      ttlHours: z.number().positive().default(720),
      /** A conversation larger than this (as JSON) is not kept: continuing it finds nothing. */
      maxBytes: z
        .number()
        .int()
        .min(1024)
        .max(1024 * 1024 * 1024)
        .default(20 * 1024 * 1024),
    })
    .default({ enabled: false, ttlHours: 720, maxBytes: 20 * 1024 * 1024 }),
  /**
   * `b64_json` of image answers: `data-uri` (the spec's `data:image/png;base64,…`) or `raw` (plain base64, as
   * OpenAI sends it and OpenAI-style clients such as `@ai-sdk/openai` decode it).
   */
  images: z
    .strictObject({ b64Json: z.enum(['data-uri', 'raw']).default('data-uri') })
    .default({ b64Json: 'data-uri' }),
  /** Responses WebSocket mode (`ws://…/v1/responses`): its bounds. */
  webSocket: webSocketSchema.default(webSocketSchema.parse({})),
});

/** Node refuses a headers timeout longer than the request timeout; say so at start instead. */
export const boundedServerSchema = serverSchema
  .refine((server) => server.headersTimeoutMs <= server.requestTimeoutMs, {
    message: 'headersTimeoutMs must not exceed requestTimeoutMs',
    path: ['headersTimeoutMs'],
  })
  .refine((server) => (server.maxBodyBytesInFlight ?? server.maxBodyBytes) >= server.maxBodyBytes, {
    message: 'maxBodyBytesInFlight must be at least maxBodyBytes (else the largest body is never accepted)',
    path: ['maxBodyBytesInFlight'],
  });

export type ServerConfig = z.infer<typeof serverSchema>;
