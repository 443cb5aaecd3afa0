// The measuring client for sequential (concurrency 1) requests: one keep-alive connection per target, undici
// `request`, hrtime around each request until its last byte.
import { Pool } from 'undici';
import { checkAnswer, STREAM_KINDS } from './bench-requests.mjs';

const DATA_PREFIX = Buffer.from('data:');
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** A client bound to one target: `{ send(kind) → { totalMs, ttfbMs }, probe(kind) → reason | null, close() }`. */
export function createClient(target, requests) {
  const pool = new Pool(target.origin, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  const options = (kind) => ({
    method: 'POST',
    path: requests[kind].path,
    headers: { ...target.headers, 'content-length': String(requests[kind].body.length) },
    body: requests[kind].body,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  return {
    /** One request, timed. TTFB is the first body chunk holding an SSE `data:` line (comments do not count). */
    async send(kind) {
      const start = nowMs();
      const res = await pool.request(options(kind));
      let ttfbMs = null;
      if (res.statusCode !== 200) {
        const text = await res.body.text();
        throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
      }
      if (STREAM_KINDS.includes(kind)) {
        for await (const chunk of res.body) {
          if (ttfbMs === null && chunk.includes(DATA_PREFIX)) ttfbMs = nowMs() - start;
        }
      } else {
        await res.body.arrayBuffer();
      }
      return { totalMs: nowMs() - start, ttfbMs };
    },
    /** One request whose answer is checked for the OpenAI shape; returns why it is wrong, or null. */
    async probe(kind) {
      try {
        const res = await pool.request(options(kind));
        return checkAnswer(kind, res.statusCode, await res.body.text());
      } catch (error) {
        return `request failed: ${error.message}`;
      }
    },
    close: () => pool.close(),
  };
}
