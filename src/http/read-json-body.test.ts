import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { isUtf8JsonType, parseJsonText } from './read-json-body.js';

const LIMITS = { maxJsonDepth: 64, maxJsonValues: 1_000 };

describe('isUtf8JsonType', () => {
  it.each([
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json; charset=utf8',
    'application/json; foo=bar',
    'application/vnd.api+json; charset=utf-8',
    'application/json; charset=us-ascii',
    // A quoted value is one value, whatever it holds.
    'application/json; foo="x;charset=latin1"',
    'application/json; foo="a\\"b;charset=latin1"; charset=utf-8',
  ])('takes %s', (type) => {
    expect(isUtf8JsonType(type)).toBe(true);
  });

  // bug: a declared charset other than UTF-8 was read as UTF-8 and answered 200
  it.each([
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset="iso-8859-1"',
    'application/json; charset=',
    'application/json; charset=utf-8; charset=latin1',
    'application/json; foo="x"; charset=latin1',
    'application/x-www-form-urlencoded',
    'text/plain; charset=utf-8',
    'application/jsonp',
  ])('refuses %s', (type) => {
    expect(isUtf8JsonType(type)).toBe(false);
  });
});

describe('parseJsonText', () => {
  const messageOf = (text: string): string => {
    try {
      parseJsonText(Buffer.from(text), LIMITS);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    throw new Error('parsed');
  };

  // bug: V8's message quotes the text around the fault, and the message is the request's record's too: a
  // malformed body kept a piece of its prompt in the record.
  it.each([
    'christian@gmail.com',
    '{"a": christian@gmail.com}',
    '{"messages":[{"role":"user","content":"hi"}], "n": christian@gmail.com}',
  ])('says what is wrong with %s without quoting it', (text) => {
    const message = messageOf(text);
    expect(message).toMatch(/^The request body is not valid JSON: Unexpected token 'c'/);
    expect(message).not.toContain('christian');
    expect(message).not.toContain('gmail');
  });

  it('keeps the position V8 gives (Node 22 and later add its line and column)', () => {
    expect(messageOf('{"a": "b" "c"}')).toMatch(
      /^The request body is not valid JSON: Expected ',' or '}' after property value in JSON at position 10( \(line 1 column 11\))?$/,
    );
  });
});

describe('parseJsonText value count (server.maxJsonValues)', () => {
  const objects = (count: number) => Buffer.from(`{"model":"m","x":[${Array(count).fill('{}').join(',')}]}`);

  it('parses a body of as many values as allowed', () => {
    // The top object, the array, 997 objects, and 1 + 996 commas: 1,996 counted.
    expect(parseJsonText(objects(997), { maxJsonDepth: 64, maxJsonValues: 1_996 })).toMatchObject({
      model: 'm',
    });
  });

  it('refuses one more with 413 in the error shape, before parsing', () => {
    let refused: unknown;
    try {
      parseJsonText(objects(997), { maxJsonDepth: 64, maxJsonValues: 1_995 });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ status: 413, code: 'BAD_REQUEST', type: 'invalid_request_error' });
    expect((refused as Error).message).toBe(
      'The request body holds more than 1995 JSON values (arrays, objects and their items).',
    );
  });

  it('is checked before the JSON is parsed: malformed text past the limit is refused for its count', () => {
    const text = Buffer.from(`[${'{},'.repeat(2_000)} nonsense`);
    expect(() => parseJsonText(text, LIMITS)).toThrow(/more than 1000 JSON values/);
  });
});
