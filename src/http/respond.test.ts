import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendJson } from './respond.js';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/**
 * Answers one GET with `sendJson(body)` and then closes the connection (a body shorter than its declared
 * length fails the read at once); resolves with the answer's bytes and its `content-length`.
 */
async function answer(body: unknown): Promise<{ bytes: Buffer; length: string | undefined }> {
  const server = createServer((req, res) => {
    sendJson(res, 200, body);
    res.once('finish', () => req.socket.end());
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, async (res) => {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        resolve({ bytes: Buffer.concat(chunks), length: res.headers['content-length'] });
      } catch (error) {
        reject(error);
      }
    })
      .on('error', reject)
      .end();
  });
}

describe('sendJson', () => {
  it('writes an ASCII body and one with wider characters byte for byte, with their byte length', async () => {
    for (const body of [
      { text: 'plain' },
      // ÿ is one byte in Latin-1 (and in V8's one-byte strings) but two in UTF-8.
      { text: 'ÿ' },
      { text: 'é 😀 \u2028', list: ['ÿ'] },
    ]) {
      const { bytes, length } = await answer(body);
      const expected = Buffer.from(JSON.stringify(body));
      expect(bytes.equals(expected)).toBe(true);
      expect(length).toBe(String(expected.length));
    }
  });
});
