import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { AppDeps } from './app-deps.js';
import { createResponsesSockets } from './responses-sockets.js';

const wsLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/ws/'));

// This file imports nothing that loads `ws`, so what it sees is what the sockets' own module does.
describe('Responses WebSocket mode at rest', () => {
  it('does not load the WebSocket library until a socket is asked for, and closes with none open', async () => {
    const deps = {
      config: { server: { webSocket: { enabled: true, maxSockets: 4, maxMessageBytes: 1024 } } },
    } as unknown as AppDeps;
    const sockets = createResponsesSockets(deps);
    expect(sockets.size).toBe(0);
    expect(wsLoaded()).toBe(false);
    await sockets.close(10);
    expect(wsLoaded()).toBe(false);
  });
});
