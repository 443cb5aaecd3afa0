// The floor of a Node gateway on node:http alone: pipe every request to the upstream with http.request over a
// keep-alive Agent, pipe the answer back. No parsing, no auth, any path.
//
//   node bench/passthrough-node.mjs --upstream=http://127.0.0.1:PORT [--port=0]
import http from 'node:http';
import { exitWhenParentGoes, isMain, printReady, readFlag } from './child-process-protocol.mjs';
import { withoutHopByHop } from './hop-by-hop.mjs';

/** Creates the pass-through server (not yet listening) in front of `upstreamUrl`. */
export function createNodePassthrough(upstreamUrl) {
  const upstream = new URL(upstreamUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  const server = http.createServer((req, res) => {
    const headers = withoutHopByHop(req.headers);
    if (req.headers['transfer-encoding'] !== undefined) headers['transfer-encoding'] = 'chunked';
    const proxyReq = http.request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (proxyRes) => {
        res.writeHead(proxyRes.statusCode ?? 502, withoutHopByHop(proxyRes.headers));
        proxyRes.pipe(res);
      },
    );
    proxyReq.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"upstream failed","type":"upstream_error","code":null,"param":null}}');
    });
    res.on('close', () => {
      if (!res.writableFinished) proxyReq.destroy();
    });
    req.pipe(proxyReq);
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

if (isMain(import.meta.url)) {
  const server = createNodePassthrough(readFlag('upstream', 'http://127.0.0.1:9101'));
  server.listen(Number(readFlag('port', '0')), '127.0.0.1', () =>
    printReady({ port: server.address().port }),
  );
  exitWhenParentGoes();
}
