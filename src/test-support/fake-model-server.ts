import { createServer, type Server, type ServerResponse } from 'node:http';
import { listenLoopback } from './listen-loopback.js';

/**
 * A fake self-hosted model server on loopback (Ollama or vLLM): it lists its models (`GET /api/tags` in
 * Ollama's shape, `GET /v1/models` in OpenAI's) and answers chat completions, and can be told to fail its
 * listings. For discovery end-to-end tests.
 */
export interface FakeModelServer {
  /** Base URL ending in /v1 (what a provider's baseUrl is). */
  url: string;
  /** The models the server has now (names as the server spells them). */
  models: string[];
  /** When set, listings answer this status instead of the list. */
  failListingsWith: number | undefined;
  /** When set, listings answer this many bytes of padding inside the list (a listing too large). */
  padListingBytes: number | undefined;
  /** Listing requests received, with their path and authorization header. */
  listings: { path: string; authorization: string | undefined }[];
  /** Chat request bodies received. */
  chats: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startFakeModelServer(models: string[] = []): Promise<FakeModelServer> {
  const state: FakeModelServer = {
    url: '',
    models,
    failListingsWith: undefined,
    padListingBytes: undefined,
    listings: [],
    chats: [],
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method === 'GET' && (path === '/api/tags' || path === '/v1/models')) {
        state.listings.push({ path, authorization: req.headers.authorization });
        return answerListing(state, path, res);
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        state.chats.push(body);
        return json(res, 200, chatAnswer(typeof body.model === 'string' ? body.model : ''));
      }
      json(res, 404, { error: { message: `no ${req.method} ${path}` } });
    });
  });
  const listening = await listenLoopback(server);
  state.url = `${listening.origin}/v1`;
  state.close = listening.close;
  return state;
}

function answerListing(state: FakeModelServer, path: string, res: ServerResponse): void {
  if (state.failListingsWith !== undefined) {
    json(res, state.failListingsWith, { error: { message: 'listing failed' } });
    return;
  }
  const padding = state.padListingBytes ? 'x'.repeat(state.padListingBytes) : undefined;
  if (path === '/api/tags') {
    const entries = state.models.map((name) => ({
      name,
      model: name,
      modified_at: '2025-06-01T00:00:00Z',
      size: 1,
    }));
    json(res, 200, { models: entries, ...(padding ? { padding } : {}) });
    return;
  }
  const entries = state.models.map((id) => ({
    id,
    object: 'model',
    created: 1_750_000_000,
    owned_by: 'vllm',
  }));
  json(res, 200, { object: 'list', data: entries, ...(padding ? { padding } : {}) });
}

function chatAnswer(model: string) {
  return {
    id: 'chatcmpl-local',
    object: 'chat.completion',
    created: 1_763_000_000,
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content: `Hello from ${model}` }, finish_reason: 'stop' },
    ],
    usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
