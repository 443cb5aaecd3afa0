// A minimal OTLP/HTTP trace sink for the `gateway-traced` target: answers every POST with 200 `{}` after
// reading the body, and counts what it received (so the report can say spans really were exported).
//
// Run as a process: `node bench/otlp-sink.mjs` prints `{"port":N}` once listening; exits when stdin closes.
import http from 'node:http';
import { exitWhenParentGoes, isMain, printReady } from './child-process-protocol.mjs';

if (isMain(import.meta.url)) {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports, bytes }));
      return;
    }
    req.on('data', (chunk) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1', () => {
    printReady({ port: server.address().port });
    exitWhenParentGoes();
  });
}
