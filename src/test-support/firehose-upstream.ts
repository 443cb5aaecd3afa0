import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Firehose {
  url: string;
  /** Streams whose writes are waiting for the gateway to read (the gateway stopped pulling). */
  blocked(): number;
  /** Streams open now. */
  open(): number;
  /** Streams the gateway closed before they ended. */
  closedByClient(): number;
  /** Bytes of stream events written so far (all streams). */
  bytesSent(): number;
  close(): Promise<void>;
}

/**
 * An OpenAI-protocol upstream (embeddings answer at once) whose chat streams never end and send as fast as the reader takes them
 * (4 KiB of text per chunk), honouring its own socket's backpressure: it shows whether the gateway reads
 * the upstream faster than its client reads the gateway.
 */
export async function startFirehoseUpstream(): Promise<Firehose> {
  const waiting = new Set<ServerResponse>();
  const streams = new Set<ServerResponse>();
  let closedByClient = 0;
  let bytesSent = 0;
  const text = 'x'.repeat(4096);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/embeddings')) {
        const body = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }] };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...body, model: 'e', usage: { prompt_tokens: 1, total_tokens: 1 } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      streams.add(res);
      res.on('close', () => {
        streams.delete(res);
        waiting.delete(res);
        if (!res.writableEnded) closedByClient += 1;
      });
      const base = { id: 'chatcmpl-firehose', object: 'chat.completion.chunk', created: 1, model: 'm' };
      const chunk = `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`,
      );
      const pump = () => {
        while (!res.destroyed) {
          bytesSent += chunk.length;
          if (!res.write(chunk)) {
            waiting.add(res);
            res.once('drain', () => {
              waiting.delete(res);
              pump();
            });
            return;
          }
        }
      };
      pump();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    blocked: () => waiting.size,
    open: () => streams.size,
    closedByClient: () => closedByClient,
    bytesSent: () => bytesSent,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
