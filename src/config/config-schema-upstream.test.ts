import { describe, expect, it } from 'vitest';
import { parseConfig } from './load-config.js';

/** The upstream bounds of the config (server.upstreamIdleTimeoutMs, maxUpstreamResponseBytes, providers[].idleTimeoutMs). */
const provider = { id: 'p', api: 'openai', baseUrl: 'http://127.0.0.1:1/v1' };

describe('config: upstream bounds', () => {
  it('defaults to 60 s of silence and 64 MiB per answer', () => {
    const config = parseConfig({ providers: [provider] }, 'test');
    expect(config.server.upstreamIdleTimeoutMs).toBe(60_000);
    expect(config.server.maxUpstreamResponseBytes).toBe(64 * 1024 * 1024);
    expect(config.providers[0]?.idleTimeoutMs).toBeUndefined();
  });

  it('takes a provider idle timeout and server-wide values', () => {
    const config = parseConfig(
      {
        server: { upstreamIdleTimeoutMs: 5_000, maxUpstreamResponseBytes: 1024 },
        providers: [{ ...provider, idleTimeoutMs: 250 }],
      },
      'test',
    );
    expect(config.server).toMatchObject({ upstreamIdleTimeoutMs: 5_000, maxUpstreamResponseBytes: 1024 });
    expect(config.providers[0]?.idleTimeoutMs).toBe(250);
  });

  it.each([
    ['server.upstreamIdleTimeoutMs', { server: { upstreamIdleTimeoutMs: 0 } }],
    ['server.maxUpstreamResponseBytes', { server: { maxUpstreamResponseBytes: -1 } }],
    ['server.maxUpstreamResponseBytes', { server: { maxUpstreamResponseBytes: 1.5 } }],
    ['providers.0.idleTimeoutMs', { providers: [{ ...provider, idleTimeoutMs: 0 }] }],
  ])('rejects a bad %s, naming it', (path, raw) => {
    expect(() => parseConfig(raw, 'test')).toThrow(path);
  });
});
