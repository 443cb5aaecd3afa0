import {
  type FakeAnthropicUpstream,
  startFakeAnthropicUpstream,
} from '../../src/test-support/fake-anthropic-upstream.js';
import {
  FAKE_GEMINI_USAGE,
  type FakeGeminiUpstream,
  startFakeGeminiUpstream,
} from '../../src/test-support/fake-gemini-upstream.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import {
  type CanonicalUsage,
  type IngressId,
  type ProviderId,
  TOOL_ARGUMENTS,
  TOOL_NAME,
  TOOL_RESULT,
} from './scenario.js';

/** The wire format an upstream receives: it depends on the provider, and for OpenAI on the ingress. */
export type WireId = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';

/** One request as the fake upstream received it. */
export interface Sent {
  path: string;
  body: Record<string, unknown>;
}

/** A provider of the matrix: its model slug, its fake, and what that fake answers. */
export interface ProviderUnderTest {
  id: ProviderId;
  /** The model slug clients ask for. */
  model: string;
  /** The upstream's own model name. */
  upstreamModel: string;
  wire(ingress: IngressId): WireId;
  /** The fake's plain answer. */
  reply(): string;
  setReply(text: string): void;
  /** The fake's answer after it got TOOL_RESULT back. */
  afterToolResult: string;
  /** Makes the fake's next answers end at the max-tokens limit. */
  truncate(): void;
  /** Makes the fake's next answers end on the request's stop sequence, where its API can say so. */
  stopOnSequence(): void;
  /** Whether the provider's API names the stop sequence that ended an answer (Anthropic does). */
  namesStopSequence: boolean;
  /** Makes the fake return reasoning text when the request asks for reasoning. */
  enableReasoning(): void;
  /** The reasoning text the fake then returns ('' where the API returns none). */
  reasoningText: string;
  /** The usage the fake reports, priced with the config below. */
  usage: CanonicalUsage;
  lastSent(): Sent;
}

export interface Matrix {
  providers: Record<ProviderId, ProviderUnderTest>;
  /** Gateway base URL ending in /v1. */
  baseURL: string;
  key: string;
  /** Back to the fakes' defaults of the matrix (reply texts). */
  reset(): void;
  stop(): Promise<void>;
}

const OPENAI_REPLY = 'Hello from the fake OpenAI!';
const COMPAT_REPLY = 'Hello from the fake OpenAI-compatible provider!';
const COMPAT_REASONING = 'The compatible provider thinks.';
/** The signed thinking block the Anthropic fake answers with when thinking is on. */
export const CLAUDE_THINKING = { thinking: 'Claude thinks.', signature: 'sig_fake_claude_0001' };
const GEMINI_THOUGHT = 'Gemini thinks.';

/** Makes an OpenAI-protocol fake behave like the others: one tool call when tools are offered, text after. */
function armOpenAIFake(fake: FakeUpstream, callId: string, reply: string): void {
  fake.reply = reply;
  fake.toolCalls = [{ id: callId, name: TOOL_NAME, arguments: JSON.stringify(TOOL_ARGUMENTS) }];
  fake.toolCallsWhenOffered = true;
  fake.responsesToolCalls = true;
  fake.finishReason = undefined;
  fake.reasoningContent = undefined;
}

function lastOf(received: { path: string; body: Record<string, unknown> }[]): Sent {
  const sent = received.at(-1);
  if (!sent) throw new Error('the fake upstream received nothing');
  return { path: sent.path, body: sent.body };
}

/**
 * ONE gateway in front of four providers, each on its own fake upstream and serving its own model:
 * OpenAI (chat and Responses natively), an OpenAI-compatible provider with chat only (Responses translated
 * over chat), Anthropic (`api: anthropic`) and Gemini (`api: gemini`).
 */
export async function startMatrix(): Promise<Matrix> {
  const compat = await startFakeOpenAIUpstream();
  const anthropic: FakeAnthropicUpstream = await startFakeAnthropicUpstream();
  const gemini: FakeGeminiUpstream = await startFakeGeminiUpstream();
  const env: TestGateway = await startTestGateway((openaiUrl) => ({
    providers: [
      { id: 'fake-openai', api: 'openai', baseUrl: openaiUrl, apiKey: 'sk-openai', timeoutMs: 2000 },
      {
        id: 'fake-compat',
        api: 'openai',
        baseUrl: compat.url,
        apiKey: 'sk-compat',
        timeoutMs: 2000,
        supports: ['chat'],
      },
      { id: 'fake-anthropic', api: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant', timeoutMs: 2000 },
      { id: 'fake-gemini', api: 'gemini', baseUrl: `${gemini.url}/v1beta`, apiKey: 'gem', timeoutMs: 2000 },
    ],
    models: [
      model('openai/gpt-matrix', 'fake-openai', 'gpt-matrix-1', { input: '0.000002', output: '0.000008' }),
      model('compat/chat-matrix', 'fake-compat', 'chat-matrix-1', { input: '0.000001', output: '0.000004' }),
      model('anthropic/claude-matrix', 'fake-anthropic', 'claude-matrix-1', {
        input: '0.000003',
        output: '0.000015',
        input_cache_read: '0.0000003',
        input_cache_write: '0.00000375',
      }),
      model('google/gemini-matrix', 'fake-gemini', 'gemini-matrix-1', {
        input: '0.0000003',
        output: '0.0000025',
        input_cache_read: '0.000000075',
      }),
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  }));
  const openai = env.upstream;
  const reset = () => {
    armOpenAIFake(openai, 'call_openai_1', OPENAI_REPLY);
    armOpenAIFake(compat, 'call_compat_1', COMPAT_REPLY);
    anthropic.reply = 'Hello from the fake Claude!';
    anthropic.toolInput = { ...TOOL_ARGUMENTS };
    anthropic.stopReason = undefined;
    anthropic.thinking = undefined;
    gemini.reply = 'Hello from the fake Gemini!';
    gemini.finishReason = undefined;
    gemini.thought = undefined;
  };
  reset();
  // The OpenAI fakes report 12 prompt and 7 completion tokens, nothing cached.
  const openaiUsage = (inputNano: number, outputNano: number) => ({
    input: 12,
    cachedRead: 0,
    cacheWrite: 0,
    output: 7,
    reasoning: 0,
    cost: 12 * inputNano + 7 * outputNano,
  });
  const providers: Record<ProviderId, ProviderUnderTest> = {
    openai: {
      id: 'openai',
      model: 'openai/gpt-matrix',
      upstreamModel: 'gpt-matrix-1',
      wire: (ingress) => (ingress === 'responses' ? 'openai-responses' : 'openai-chat'),
      reply: () => openai.reply,
      setReply: (text) => {
        openai.reply = text;
      },
      afterToolResult: OPENAI_REPLY,
      truncate: () => {
        openai.finishReason = 'length';
      },
      // OpenAI ends on a stop sequence with `stop`, without naming it.
      stopOnSequence: () => undefined,
      namesStopSequence: false,
      // OpenAI's chat completions return no reasoning text.
      enableReasoning: () => undefined,
      reasoningText: '',
      usage: openaiUsage(2000, 8000),
      lastSent: () => lastOf(openai.received),
    },
    'openai-compat': {
      id: 'openai-compat',
      model: 'compat/chat-matrix',
      upstreamModel: 'chat-matrix-1',
      wire: () => 'openai-chat',
      reply: () => compat.reply,
      setReply: (text) => {
        compat.reply = text;
      },
      afterToolResult: COMPAT_REPLY,
      truncate: () => {
        compat.finishReason = 'length';
      },
      stopOnSequence: () => undefined,
      namesStopSequence: false,
      // As DeepSeek and vLLM: `reasoning_content` beside the answer.
      enableReasoning: () => {
        compat.reasoningContent = COMPAT_REASONING;
      },
      reasoningText: COMPAT_REASONING,
      usage: openaiUsage(1000, 4000),
      lastSent: () => lastOf(compat.received),
    },
    anthropic: {
      id: 'anthropic',
      model: 'anthropic/claude-matrix',
      upstreamModel: 'claude-matrix-1',
      wire: () => 'anthropic',
      reply: () => anthropic.reply,
      setReply: (text) => {
        anthropic.reply = text;
      },
      afterToolResult: `The tool said: ${TOOL_RESULT}`,
      truncate: () => {
        anthropic.stopReason = 'max_tokens';
      },
      stopOnSequence: () => {
        anthropic.stopReason = 'stop_sequence';
      },
      namesStopSequence: true,
      enableReasoning: () => {
        anthropic.thinking = CLAUDE_THINKING;
      },
      reasoningText: CLAUDE_THINKING.thinking,
      // 10 fresh input tokens, 4 cache reads, 2 cache writes, 7 output tokens.
      usage: {
        input: 16,
        cachedRead: 4,
        cacheWrite: 2,
        output: 7,
        reasoning: 0,
        cost: 10 * 3000 + 4 * 300 + 2 * 3750 + 7 * 15000,
      },
      lastSent: () => lastOf(anthropic.received),
    },
    gemini: {
      id: 'gemini',
      model: 'google/gemini-matrix',
      upstreamModel: 'gemini-matrix-1',
      wire: () => 'gemini',
      reply: () => gemini.reply,
      setReply: (text) => {
        gemini.reply = text;
      },
      afterToolResult: `The tool said: ${TOOL_RESULT}`,
      truncate: () => {
        gemini.finishReason = 'MAX_TOKENS';
      },
      // Gemini ends on a stop sequence with STOP, without naming it.
      stopOnSequence: () => undefined,
      namesStopSequence: false,
      enableReasoning: () => {
        gemini.thought = GEMINI_THOUGHT;
      },
      reasoningText: GEMINI_THOUGHT,
      // 20 prompt tokens of which 8 cached; 6 text and 4 thinking tokens.
      usage: {
        input: FAKE_GEMINI_USAGE.promptTokenCount,
        cachedRead: FAKE_GEMINI_USAGE.cachedContentTokenCount,
        cacheWrite: 0,
        output: FAKE_GEMINI_USAGE.candidatesTokenCount + FAKE_GEMINI_USAGE.thoughtsTokenCount,
        reasoning: FAKE_GEMINI_USAGE.thoughtsTokenCount,
        cost: 12 * 300 + 8 * 75 + 10 * 2500,
      },
      lastSent: () => lastOf(gemini.received),
    },
  };
  return {
    providers,
    baseURL: env.baseURL,
    key: TEST_KEY,
    reset,
    stop: async () => {
      await env.stop();
      await Promise.all([compat.close(), anthropic.close(), gemini.close()]);
    },
  };
}

function model(id: string, provider: string, upstream: string, pricing: Record<string, string>) {
  return {
    id,
    name: id,
    capabilities: ['tool-use', 'vision', 'reasoning'],
    api_compatibility: ['chat-completion', 'open-responses', 'vendor-messages'],
    context_window: 128000,
    max_tokens: 8192,
    endpoints: [{ provider, model: upstream, pricing }],
  };
}
