import { afterEach, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * `server.preloadTokenizer`: the tokenizer is loaded before the gateway listens, so its load (about 0.2 s of
 * the event loop) never holds requests in flight. Without it, it loads on first use.
 */
describe('server.preloadTokenizer', () => {
  let test: TestGateway | undefined;
  afterEach(async () => {
    await test?.stop();
    test = undefined;
  });

  it.for<[boolean]>([[true], [false]])(
    'preloadTokenizer: %s; the tokenizer is at hand as soon as the gateway listens only when preloaded',
    async ([preload]) => {
      test = await startTestGateway((url) => testConfig(url, { server: { preloadTokenizer: preload } }));
      // `ready()` gives the counter only once this gateway's load finished; else it starts the load.
      const counter = test.gateway.deps.tokenCounter.ready();
      expect(counter !== undefined).toBe(preload);
      if (counter) expect(counter('Hello world')).toBe(2);
    },
  );
});

/**
 * Every count goes through the process's one tokenizer: the counting endpoints and the optimizations read
 * and parsed its 3.6 MB table on every request (about 50 ms of CPU each, 3.4 MB of memory per request in
 * flight).
 */
describe('one tokenizer per process', () => {
  it("count_tokens, Gemini countTokens and an optimized request all use the gateway's counter", async () => {
    const test = await startTestGateway();
    try {
      const { deps } = test.gateway;
      const shared = deps.tokenCounter;
      let loads = 0;
      deps.tokenCounter = {
        ready: () => shared.ready(),
        load: () => {
          loads += 1;
          return shared.load();
        },
      };
      const post = (path: string, body: Record<string, unknown>) =>
        fetch(`${test.baseURL}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const messages = [{ role: 'user', content: 'Hello world' }];
      const counted = await post('/messages/count_tokens', { model: 'acme/chat-large', messages });
      expect(counted.status).toBe(200);
      expect(loads).toBe(1);
      const origin = test.baseURL.replace(/\/v1$/, '');
      const gemini = await fetch(`${origin}/v1beta/models/acme/chat-large:countTokens`, {
        method: 'POST',
        headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello world' }] }] }),
      });
      expect(gemini.status).toBe(200);
      expect(loads).toBe(2);
      const optimized = await post('/chat/completions', {
        model: 'acme/chat-large',
        messages,
        gateway: { chatHistoryCompression: { enabled: true } },
      });
      expect(optimized.status).toBe(200);
      expect(loads).toBe(3);
    } finally {
      await test.stop();
    }
  });
});
