import { computeCostNano } from '../accounting/compute-cost.js';
import { emptyUsage, type Usage } from '../accounting/usage.js';
import type { RequestKind } from '../codecs/request-kind.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { countPaced, countRequestTokens, type TextTokenCounter } from '../optimizations/count-tokens.js';
import type { AnswerMeta, Settle, StreamFramer } from './endpoint.js';
import { account, type ExecutionReport, type Served } from './execute.js';
import type { OpenedStream } from './open-stream.js';
import { pumpStream } from './pump-stream.js';
import type { Run } from './run.js';
import type { EventSink } from './transport.js';
import { warningsHeader } from './warnings.js';

/** An open event stream: its sink and the endpoint's framer. */
export interface Live<Part> {
  sse: EventSink;
  framer: StreamFramer<Part>;
}

/** The stream step's inputs besides the run, the served stream and the sink. */
export interface StreamStep {
  facts: StreamFacts;
  /** The answer's usage and cost once accounted. */
  meta: () => AnswerMeta;
  /** The prepared request as sent, and its shape: for billing a stream cut short. */
  sent: JsonObject;
  kind: RequestKind;
  /** Journals the record (with the failure the answer reported, if any) before the last byte leaves. */
  beforeLastByte: (failure?: GatewayError) => Promise<void>;
}

/** What the stream step reads of the pipeline's facts, and fills in as it goes. */
export interface StreamFacts {
  firstTokenAt?: number;
  execution?: ExecutionReport;
}

/** Streams the served answer; usage is accounted when it arrives (`settle`), once. */
export async function streamAnswer<Part>(
  run: Run,
  served: Served<OpenedStream<Part>>,
  live: Live<Part>,
  step: StreamStep,
): Promise<void> {
  const { facts, meta, sent, kind, beforeLastByte } = step;
  const { deps, ctx } = run;
  run.warnings.push(...served.value.warnings);
  Object.assign(ctx.headers, warningsHeader({}, run.warnings));
  const progress = { firstTokenAt: undefined as number | undefined };
  facts.execution = {
    model: served.model.id,
    provider: served.endpoint.provider,
    usage: emptyUsage(),
    costNano: 0,
  };
  deps.records.progress(run.genId, { provider: served.endpoint.provider, httpStatus: 200 });
  const clock = deps.records.progressClock;
  let settled: AnswerMeta | undefined;
  const settle: Settle = (usage) => {
    if (settled) return settled;
    const counted = usage ?? unreportedUsage(run, live.framer, sent, kind, served.endpoint.provider);
    facts.firstTokenAt = progress.firstTokenAt;
    facts.execution = account(run, served, counted, {
      firstTokenAt: progress.firstTokenAt,
      startedAt: run.startedAt,
    });
    settled = meta();
    return settled;
  };
  try {
    await pumpStream({
      sse: live.sse,
      opened: served.value,
      framer: live.framer,
      settle,
      progress,
      now: deps.now,
      reporting: clock && { clock, report: progressReport(run, served, live.framer, sent, kind) },
      stalledClientTimeoutMs: deps.config.server.stalledClientTimeoutMs,
      beforeLastByte: async (failure) => {
        facts.firstTokenAt = progress.firstTokenAt;
        await beforeLastByte(failure);
      },
    });
  } catch (error) {
    // A failure that reported the usage its provider bills (an error chunk with usage) is billed that.
    const reported = error instanceof GatewayError ? error.billedUsage : undefined;
    if (!settled) settle(reported ?? (await cutShortUsage(run, live.framer, served.value, sent, kind)));
    throw error;
  } finally {
    facts.firstTokenAt = progress.firstTokenAt;
  }
}

/**
 * What a running stream reports to the journal once per `records.progressIntervalMs` (`pump-stream.ts`), so
 * that a process killed mid-stream leaves an `interrupted` record billed what a stream cut short is (the
 * provider's counts so far, else the prompt and the text streamed so far, as counted), at most the
 * reservation, never 0. The prompt is estimated at 4 characters a token until its paced count (started at
 * the first report) is done.
 */
function progressReport(
  run: Run,
  served: Served<OpenedStream<unknown>>,
  framer: StreamFramer<unknown>,
  sent: JsonObject,
  kind: RequestKind,
): () => void {
  let promptTokens: number | undefined;
  let estimate: number | undefined;
  let streamed = 0;
  return () => {
    if (estimate === undefined) {
      estimate = Math.ceil(JSON.stringify(sent).length / 4);
      void run.deps.tokenCounter
        .load()
        .then((count) => countPaced((counter) => countRequestTokens(sent, kind, counter), count))
        .then(
          (counted) => {
            promptTokens = counted;
          },
          () => undefined,
        );
    }
    // Counted only with the tokenizer (which the meter's final count uses too), else as last read.
    const count = run.deps.tokenCounter.ready();
    const partial = framer.partial();
    const soFar = served.value.usageSoFar?.();
    const usage: Usage = partial.usage ??
      (soFar && soFar.problems === undefined ? soFar : undefined) ?? {
        ...emptyUsage(),
        inputTokens: promptTokens ?? estimate,
        outputTokens: count ? partial.text.tokens(count) : streamed,
      };
    streamed = usage.outputTokens;
    const reserved = run.reservations.find((reservation) => reservation.role === 'executor')?.amountNano;
    const cost = computeCostNano(usage, served.endpoint.compiledPricing);
    run.deps.records.progress(run.genId, {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costNanoUsd: reserved === undefined ? cost : Math.min(cost, reserved),
      ...(reserved === undefined ? {} : { reservedNanoUsd: reserved }),
    });
  };
}

/**
 * What a provider bills for a stream cut short (the client went away, the upstream or the gateway failed):
 * the usage it reported if it came; else, where it reports counts while streaming, those counts (when sound),
 * with the output raised to the text streamed so far (counted with the tokenizer) when they trail it; else the
 * prompt and the text streamed so far, counted with the tokenizer. Never nothing: the provider generated those
 * tokens.
 */
async function cutShortUsage(
  run: Run,
  framer: StreamFramer<unknown>,
  opened: OpenedStream<unknown>,
  sent: JsonObject,
  kind: RequestKind,
): Promise<Usage> {
  const reported = framer.partial().usage;
  if (reported) return reported;
  // Counts that do not read as counts (a compatible server's message_start without output_tokens) are left
  // for the gateway's own count, rather than making the usage untrusted and the stream billed its worst case.
  const soFar = opened.usageSoFar?.();
  if (soFar && soFar.problems === undefined) {
    const streamed = framer.partial().text.tokens(await run.deps.tokenCounter.load());
    if (streamed <= soFar.outputTokens) return soFar;
    run.warnings.push(
      `the stream was cut short before the provider's final usage; billed the ${soFar.inputTokens} prompt ` +
        `tokens it reported and ${streamed} streamed tokens as counted by the gateway (it had reported ` +
        `${soFar.outputTokens})`,
    );
    return { ...soFar, outputTokens: streamed };
  }
  const usage = await countedUsage(run, framer, sent, kind);
  run.warnings.push(
    `the stream was cut short before the provider reported usage; billed ${usage.inputTokens} prompt and ` +
      `${usage.outputTokens} streamed tokens as counted by the gateway`,
  );
  return usage;
}

/** The prompt sent and the text streamed so far, counted with the tokenizer. */
async function countedUsage(
  run: Run,
  framer: StreamFramer<unknown>,
  sent: JsonObject,
  kind: RequestKind,
): Promise<Usage> {
  const count = await run.deps.tokenCounter.load();
  const inputTokens = await countPaced((counter) => countRequestTokens(sent, kind, counter), count);
  return { ...emptyUsage(), inputTokens, outputTokens: framer.partial().text.tokens(count) };
}

function usageCounted(
  framer: StreamFramer<unknown>,
  sent: JsonObject,
  kind: RequestKind,
  count: TextTokenCounter,
) {
  return {
    ...emptyUsage(),
    inputTokens: countRequestTokens(sent, kind, count),
    outputTokens: framer.partial().text.tokens(count),
  };
}

/**
 * What a stream that ended without the provider's usage is billed (some OpenAI-compatible servers never
 * report it): the prompt and the streamed text, counted at once with the tokenizer (the closing frames carry
 * the cost), or at 4 characters a token while it still loads. Never nothing.
 */
function unreportedUsage(
  run: Run,
  framer: StreamFramer<unknown>,
  sent: JsonObject,
  kind: RequestKind,
  provider: string,
): Usage {
  const tokenizer = run.deps.tokenCounter.ready();
  const usage = usageCounted(framer, sent, kind, tokenizer ?? estimateTokens);
  const how = tokenizer
    ? 'as counted by the gateway'
    : 'estimated at 4 characters a token (tokenizer loading)';
  run.warnings.push(
    `provider ${provider} reported no usage; billed ${usage.inputTokens} prompt and ${usage.outputTokens} ` +
      `streamed tokens ${how}`,
  );
  return usage;
}

const estimateTokens: TextTokenCounter = (text) => Math.ceil(text.length / 4);
