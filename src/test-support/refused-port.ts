import { connect } from 'node:net';

/** Well-known ports no test server takes: the system hands out ports from 32768 up for `listen(0)`. */
const CANDIDATES = [9, 47, 61, 91, 97, 113, 401, 777, 1011];

/**
 * A loopback port that refuses connections and keeps refusing them. A port taken with `listen(0)` and
 * released is soon handed to another test's server (tests run in parallel), which then answers where a dead
 * provider or store was meant to be; a port below the system's ephemeral range is never handed out. Each
 * candidate is checked to refuse a connection now.
 */
export async function refusedPort(): Promise<number> {
  for (const port of CANDIDATES) if (await refuses(port)) return port;
  throw new Error(`every candidate port accepts connections on 127.0.0.1: ${CANDIDATES.join(', ')}`);
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
