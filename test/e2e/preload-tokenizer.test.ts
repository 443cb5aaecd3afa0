import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, testConfig } from '../../src/test-support/start-test-gateway.js';

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
