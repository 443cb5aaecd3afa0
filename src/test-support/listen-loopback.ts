import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A test server listening on a free loopback port: its origin, and a close that drops open connections. */
export interface LoopbackServer {
  origin: string;
  close: () => Promise<void>;
}

/** Starts `server` on 127.0.0.1 at a free port. */
export async function listenLoopback(server: Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
