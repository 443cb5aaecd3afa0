import { createServer, type ServerResponse } from 'node:http';
import { type LoopbackServer, listenLoopback } from './listen-loopback.js';

/** A loopback server that holds every request once its body arrived; the test ends the answers in `held`. */
export interface HoldingServer extends LoopbackServer {
  /** Answers of the requests that arrived and were not ended yet, in order of arrival. */
  held: ServerResponse[];
}

/** Starts a `HoldingServer`; its `close` ends what is still held first. */
export async function listenHolding(): Promise<HoldingServer> {
  const held: ServerResponse[] = [];
  const server = await listenLoopback(
    createServer((req, res) => {
      req.resume();
      req.on('end', () => held.push(res));
    }),
  );
  return {
    origin: server.origin,
    held,
    close: () => {
      for (const res of held.splice(0)) res.end();
      return server.close();
    },
  };
}
