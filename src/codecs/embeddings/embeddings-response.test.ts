import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../http/read-json-body.js';
import { isDeferred, parseKeepingSources } from '../../json/deferred-numbers.js';
import type { JsonObject } from '../../json/json.js';
import { serializeJsonBody, sourceBytes } from '../../json/source-bytes.js';
import { base64ToFloats, finalizeEmbeddings } from './embeddings-response.js';

const vector = Array.from({ length: 200 }, (_, i) => i / 7);
const options = { model: 'acme/embed', promptTokens: 3, costNano: 60 };

/** An upstream answer whose `data` remembers its bytes (as the OpenAI adapter reads it). */
const answer = (entries: unknown[]): JsonObject =>
  parseJsonText(Buffer.from(JSON.stringify({ object: 'list', data: entries, model: 'up' })), {
    maxJsonDepth: 64,
    maxJsonValues: 1_000_000,
  }) as JsonObject;

describe('finalizeEmbeddings', () => {
  it('passes on data already as asked, with its bytes', () => {
    const body = answer([{ object: 'embedding', index: 0, embedding: vector }]);
    const result = finalizeEmbeddings(body, { ...options, encoding: 'float' });
    expect(result.data).toBe(body.data);
    expect(sourceBytes(result.data)).toBeDefined();
    expect(result).toMatchObject({ model: 'acme/embed', usage: { prompt_tokens: 3, cost: 60 } });
  });

  it.each([
    ['an entry with another member', [{ object: 'embedding', index: 0, embedding: vector, extra: true }]],
    ['an entry without its object', [{ index: 0, embedding: vector }]],
    ['an entry whose index is not a number', [{ object: 'embedding', index: '0', embedding: vector }]],
    ['floats where base64 was asked', [{ object: 'embedding', index: 0, embedding: vector }]],
  ])('rewrites %s', (_name, entries) => {
    const body = answer(entries);
    const encoding = _name.includes('base64') ? 'base64' : 'float';
    const result = finalizeEmbeddings(body, { ...options, encoding });
    expect(result.data).not.toBe(body.data);
    expect(sourceBytes(result.data)).toBeUndefined();
    const [entry] = result.data as JsonObject[];
    expect(Object.keys(entry ?? {}).sort()).toEqual(['embedding', 'index', 'object']);
    expect(entry?.index).toBe(0);
  });

  describe('with vectors not yet read (as the OpenAI adapter parses an answer)', () => {
    const upstream = () =>
      parseKeepingSources(
        Buffer.from(
          JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: vector }] }),
        ),
        ['data'],
      ) as JsonObject;

    it('writes floats asked for as the provider wrote them, reading none', () => {
      const body = upstream();
      const result = finalizeEmbeddings(body, { ...options, encoding: 'float' });
      expect(result.data).toBe(body.data);
      const text = serializeJsonBody(result).toString();
      expect(JSON.parse(text).data[0].embedding).toEqual(vector);
      expect(isDeferred((body.data as JsonObject[])[0] as JsonObject, 'embedding')).toBe(true);
    });

    it('converts them when base64 was asked', () => {
      const result = finalizeEmbeddings(upstream(), { ...options, encoding: 'base64' });
      const [entry] = result.data as JsonObject[];
      expect(base64ToFloats(entry?.embedding as string)).toEqual(Array.from(Float32Array.from(vector)));
    });
  });
});
