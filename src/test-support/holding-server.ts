import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { type LoopbackServer, listenLoopback } from './listen-loopback.js';

/** A loopback server that holds every request once its body arrived; the test ends the answers in `held`. */
export interface HoldingServer {
  /** `http://127.0.0.1:PORT`, once the suite started. */
  readonly origin: string;
  /** Answers of the requests that arrived and were not ended yet, in order of arrival. */
  readonly held: ServerResponse[];
}

/**
 * A `HoldingServer` for the enclosing suite: listening from `beforeAll`, and in `afterAll` what it still
 * holds is ended and it is closed.
 */
export function useHoldingServer(): HoldingServer {
  const held: ServerResponse[] = [];
  let server: LoopbackServer | undefined;
  beforeAll(async () => {
    server = await listenLoopback(
      createServer((req, res) => {
        req.resume();
        req.on('end', () => held.push(res));
      }),
    );
  });
  afterAll(async () => {
    for (const res of held.splice(0)) res.end();
    await server?.close();
  });
  return {
    held,
    get origin() {
      if (server === undefined) throw new Error('the holding server starts in beforeAll');
      return server.origin;
    },
  };
}
