/**
 * A prepared request served: executed with fallback (or replayed from the response cache), then answered in
 * one body, streamed, or (the image fallback) answered with an image in the endpoint's shape.
 */

import { emptyUsage, type Usage } from '../accounting/usage.js';
import {
  DEFAULT_OUTPUT_BOUND,
  outputTokenBound,
  withAddedPrompt,
  worstCaseTokens,
} from '../accounting/worst-case.js';
import type { RequestKind } from '../codecs/request-kind.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { chatCompletionText, responsesOutputText } from '../codecs/shared/streamed-text.js';
import type { JsonObject } from '../json/json.js';
import { countPaced, countRequestTokens } from '../optimizations/count-tokens.js';
import { imageTarget, readGeneratedImage } from '../preparation/image-fallback.js';
import { largestOutput, type ModelPlan } from '../preparation/plan-models.js';
import { type CacheStep, executeOrReplay } from './cache-step.js';
import type { Endpoint, ParsedRequest, StreamScope } from './endpoint.js';
import { account, type ExecutionTarget, execute } from './execute.js';
import { openStream } from './open-stream.js';
import type { Prepared } from './prepare-request.js';
import { answerMeta, type Facts, type ServeState, type Serving } from './serving.js';
import { streamAnswer } from './stream-answer.js';
import { warningsHeader } from './warnings.js';

/** What serving a prepared request needs once its targets are known. */
export interface Answering<R extends ParsedRequest, Part> {
  endpoint: Endpoint<R, Part>;
  request: R;
  state: ServeState<Part>;
  /** The prepared body, before each provider's model name replaces the slug. */
  body: JsonObject;
  cache: CacheStep | undefined;
  target: TargetOf;
}

/** The executor's target with the given call: the same model plan, fallbacks and worst case for each. */
export type TargetOf = <T>(attempt: ExecutionTarget<T>['attempt']) => ExecutionTarget<T>;

/**
 * Notes the request's output bound and returns how to make its targets (one per kind of call). Under a cap
 * (`capped`), a chat or Responses request that sets no output limit, to models whose catalog gives none, is
 * reserved at `DEFAULT_OUTPUT_BOUND`: that limit is then put in the request, or a provider could bill output
 * past the reservation.
 */
export function executionTargets<R extends ParsedRequest, Part>(
  endpoint: Endpoint<R, Part>,
  models: ModelPlan,
  body: JsonObject,
  facts: Facts,
  capped: boolean,
): TargetOf {
  const { kind, addedPromptTokens } = endpoint;
  const { primary: model, fallbacks, plan } = models;
  const maxTokens = largestOutput([model, ...fallbacks]);
  if (capped && maxTokens === undefined && (kind === 'chat' || kind === 'responses')) {
    const member = kind === 'chat' ? 'max_tokens' : 'max_output_tokens';
    const limits = [body.max_tokens, body.max_completion_tokens, body.max_output_tokens];
    if (limits.every((limit) => limit === undefined || limit === null)) body[member] = DEFAULT_OUTPUT_BOUND;
  }
  facts.outputTokenBound = outputTokenBound(kind, body, { max_tokens: maxTokens });
  const worstCase = () =>
    withAddedPrompt(worstCaseTokens(kind, body, { max_tokens: maxTokens }), addedPromptTokens);
  const completions = typeof body.n === 'number' ? body.n : undefined;
  const prompt = endpoint.conversation && { sent: body, kind: endpoint.conversation };
  // A literal per target (members after a spread cost a hidden class per object on Node 20).
  return (attempt) => ({ role: 'executor', model, fallbacks, plan, worstCase, completions, prompt, attempt });
}

/** Executes (or replays from the cache) a streamed request and streams its answer; accounting follows the stream. */
export async function serveStream<R extends ParsedRequest, Part>(
  run: Serving,
  answering: Answering<R, Part>,
  scope: StreamScope<R>,
): Promise<void> {
  const { endpoint, body, state } = answering;
  const { facts } = state;
  const codec = endpoint.stream;
  const live = state.live.stream;
  if (!codec || !live)
    throw new Error('unreachable: a live stream is opened only where the endpoint streams');
  const served = await executeOrReplay(
    run,
    answering.target((adapter, provider, call) =>
      openStream(
        codec.open(adapter, upstreamBody(body, provider.model), call, scope),
        call,
        codec.preliminary,
      ),
    ),
    answering.cache,
  );
  // A fallback model may have served: the stream's chunks and the record carry the one that did.
  facts.model = served.model.id;
  return streamAnswer(run, served, live, {
    facts,
    meta: () => answerMeta(run, facts),
    sent: body,
    kind: endpoint.conversation ?? 'chat',
    beforeLastByte: state.beforeLastByte,
  });
}

/** Executes (or replays from the cache) a request answered in one body; accounts, records, answers. */
export async function serveJson<R extends ParsedRequest, Part>(
  run: Serving,
  answering: Answering<R, Part>,
): Promise<void> {
  const { endpoint, request, body, state } = answering;
  const { facts } = state;
  const served = await executeOrReplay(
    run,
    answering.target((adapter, provider, call) =>
      endpoint.call(adapter, upstreamBody(body, provider.model), call),
    ),
    answering.cache,
  );
  facts.firstTokenAt = run.deps.now();
  run.warnings.push(...served.value.warnings);
  const { usage } = served.value;
  const kind = endpoint.conversation;
  const billed =
    usage.unreported && kind && !served.cached
      ? await unreportedUsage(run, served.value.body, {
          sent: body,
          kind,
          provider: served.endpoint.provider,
        })
      : usage;
  facts.execution = account(run, served, billed, {
    firstTokenAt: facts.firstTokenAt,
    startedAt: run.startedAt,
  });
  const conversation = facts.conversation ?? body;
  const made = endpoint.answer(served.value, answerMeta(run, facts), {
    run,
    request,
    sent: body,
    conversation,
  });
  const answer = made instanceof Promise ? await made : made;
  await state.beforeLastByte();
  run.transport.json(200, answer, warningsHeader(run.ctx.headers, run.warnings));
}

/**
 * What an answer whose provider reported no usage at all (some OpenAI-compatible servers) is billed: the
 * prompt sent and the answer's text, counted with the tokenizer, as a stream without usage is; not its
 * worst case, which billed the whole `max_tokens` while the body said 0 tokens. Wrong counts (negative,
 * strings, too many) are still billed the worst case (see `account`).
 */
async function unreportedUsage(
  run: Serving,
  answer: JsonObject,
  { sent, kind, provider }: { sent: JsonObject; kind: RequestKind; provider: string },
): Promise<Usage> {
  const count = await run.deps.tokenCounter.load();
  const inputTokens = await countPaced((counter) => countRequestTokens(sent, kind, counter), count);
  const text = kind === 'chat' ? chatCompletionText(answer) : responsesOutputText(answer);
  const outputTokens = await countPaced((counter) => counter(text), count);
  run.warnings.push(
    `provider ${provider} reported no usage; billed ${inputTokens} prompt and ${outputTokens} completion ` +
      'tokens as counted by the gateway',
  );
  return { ...emptyUsage(), inputTokens, outputTokens };
}

/** The image fallback: the image model's call through the same execution step, answered in the endpoint's shape. */
export async function serveImage<R extends ParsedRequest, Part>(
  run: Serving,
  endpoint: Endpoint<R, Part>,
  prepared: Extract<Prepared, { kind: 'image' }>,
  state: ServeState<Part>,
): Promise<void> {
  const { facts, beforeLastByte } = state;
  const live = state.live.stream;
  const target = imageTarget(run, prepared.imageModel, prepared.prompt, prepared.choice);
  facts.model = target.model.id;
  const served = await execute(run, target);
  facts.firstTokenAt = run.deps.now();
  run.warnings.push(...served.value.warnings);
  facts.execution = account(run, served, served.value.usage, {
    firstTokenAt: facts.firstTokenAt,
    startedAt: run.startedAt,
  });
  const image = readGeneratedImage(served.value, target.model.id);
  const meta = answerMeta(run, facts);
  await beforeLastByte();
  if (live?.framer.image) {
    Object.assign(run.ctx.headers, warningsHeader({}, run.warnings));
    live.sse.raw(live.framer.image(image, meta));
    live.sse.end();
    return;
  }
  if (!endpoint.imageAnswer) throw new Error('unreachable: the image fallback runs only where an image fits');
  run.transport.json(200, endpoint.imageAnswer(image, meta), warningsHeader(run.ctx.headers, run.warnings));
}
