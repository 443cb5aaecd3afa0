import net from 'node:net';

/** A TCP port free on 127.0.0.1 right now (for servers that cannot listen on port 0 and tell us). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
