import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../http/read-json-body.js';
import { isRecord, type JsonObject } from './json.js';
import { scanJson } from './json-depth.js';
import {
  bodyByteLength,
  bodyText,
  MIN_SOURCE_BYTES,
  serializeJsonBody,
  sourceBytes,
} from './source-bytes.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const parse = (text: string): JsonObject => {
  const parsed = parseJsonText(bytes(text), { maxJsonDepth: 64, maxJsonValues: 1_000_000 });
  if (!isRecord(parsed)) throw new Error('not an object');
  return parsed;
};
const sliceOf = (text: string, [start, end]: [number, number]) => bytes(text).subarray(start, end).toString();

describe('scanJson members', () => {
  it("finds each top-level member's value, whitespace and nesting aside", () => {
    const text = ` { "model" : "m" ,\n "messages":[{"role":"user","content":"a, b: {c}"}] ,"n":2,"o":{"x":[1,{"y":"}"}]}\t}\n`;
    const members = scanJson(bytes(text), 64).members;
    expect([...(members?.keys() ?? [])]).toEqual(['model', 'messages', 'n', 'o']);
    expect(sliceOf(text, members?.get('model') ?? [0, 0])).toBe('"m"');
    expect(sliceOf(text, members?.get('messages') ?? [0, 0])).toBe('[{"role":"user","content":"a, b: {c}"}]');
    expect(sliceOf(text, members?.get('n') ?? [0, 0])).toBe('2');
    expect(sliceOf(text, members?.get('o') ?? [0, 0])).toBe('{"x":[1,{"y":"}"}]}');
  });

  it('answers nothing for names with escapes or non-ASCII, nor for a text that is not an object', () => {
    // Such a name may be another member's once parsed ("a\u0062" is "ab"), so no member's bytes are known.
    for (const text of ['{"a\\u0062":[1],"ü":[2],"c\\"":[3],"d":[4]}', '{"d":[4],"\\u0064":[5]}']) {
      expect(scanJson(bytes(text), 64).members).toBeUndefined();
    }
    expect([...(scanJson(bytes('{"d":[4],"e":[5]}'), 64).members?.keys() ?? [])]).toEqual(['d', 'e']);
    expect(scanJson(bytes('[{"a":1}]'), 64).members).toBeUndefined();
    expect(scanJson(bytes('"text"'), 64).members).toBeUndefined();
  });

  it('flags an exponent of three digits or more outside strings only', () => {
    const flagged = (text: string) => scanJson(bytes(text), 64).hugeNumber;
    expect(flagged('{"t":1E+0999}')).toBe(true);
    expect(flagged('[true,false,1e99,2.5e-999,"1e999"]')).toBe(false);
    expect(flagged('{"ok":true,"note":"see 1e999","n":1e308}')).toBe(true);
  });

  it('flags 200 digits and points in a row outside strings, wherever they end', () => {
    const flagged = (text: string) => scanJson(bytes(text), 64).hugeNumber;
    expect(flagged(`{"n":1${'0'.repeat(199)}}`)).toBe(true);
    expect(flagged(`{"n":1${'0'.repeat(198)}}`)).toBe(false);
    expect(flagged(`{"n":[true,-0.${'5'.repeat(250)}e9]}`)).toBe(true);
    expect(flagged(`1${'0'.repeat(400)}`)).toBe(true);
    expect(flagged(`{"t":"1${'0'.repeat(400)}","v":[${'1,'.repeat(300)}2]}`)).toBe(false);
  });

  it('keeps the last of duplicate names, as JSON.parse does', () => {
    const text = '{"m":[1],"m":[2,3]}';
    expect(sliceOf(text, scanJson(bytes(text), 64).members?.get('m') ?? [0, 0])).toBe('[2,3]');
  });
});

describe('source bytes of request members', () => {
  it('sends members forwarded unchanged as the bytes the client sent, byte for byte', () => {
    const long = 'x'.repeat(MIN_SOURCE_BYTES);
    const messages = `[ {"role":"user", "content":"héllo 🚀 \\u00e9 \\"q\\""}, {"role":"assistant","content":"${long}"} ]`;
    const body = parse(
      `{"model":"acme/x","messages":${messages},"tools":[{"type":"function"}],"gateway":{}}`,
    );
    const { gateway: _gateway, ...rest } = body;
    const upstream = { ...rest, model: 'upstream-x', stream: true, stream_options: { include_usage: true } };
    const sent = serializeJsonBody(upstream);
    expect(Buffer.isBuffer(sent)).toBe(true);
    expect(sent.toString()).toBe(
      `{"model":"upstream-x","messages":${messages},"tools":[{"type":"function"}],"stream":true,"stream_options":{"include_usage":true}}`,
    );
    expect(JSON.parse(sent.toString())).toStrictEqual(JSON.parse(JSON.stringify(upstream)));
  });

  it('freezes remembered members, so no step can change them in place', () => {
    const text = 'a'.repeat(MIN_SOURCE_BYTES);
    const body = parse(`{"messages":[{"role":"user","content":[{"type":"text","text":"${text}"}]}]}`);
    const messages = body.messages as JsonObject[];
    expect(() => messages.push({ role: 'user' })).toThrow(TypeError);
    expect(() => {
      (messages[0] as JsonObject).content = 'changed';
    }).toThrow(TypeError);
    const parts = (messages[0] as JsonObject).content as JsonObject[];
    expect(Object.isFrozen(parts[0])).toBe(true);
  });

  it('serialises edited copies, which carry no source bytes', () => {
    const body = parse('{"model":"m","messages":[{"role":"user","content":"secret 4111 1111 1111 1111"}]}');
    const redacted = (body.messages as JsonObject[]).map((message) => ({ ...message, content: '[CARD]' }));
    expect(sourceBytes(redacted)).toBeUndefined();
    const sent = serializeJsonBody({ ...body, messages: redacted });
    expect(sent).toBe('{"model":"m","messages":[{"role":"user","content":"[CARD]"}]}');
  });

  it('lets a small member keep only its own bytes, never the whole body', () => {
    const big = 'x'.repeat(100_000);
    const tools = `[{"type":"function","function":{"name":"f","description":"${'d'.repeat(MIN_SOURCE_BYTES)}"}}]`;
    const body = parse(`{"tools":${tools},"messages":[{"role":"user","content":"${big}"}]}`);
    expect(sourceBytes(body.tools)?.toString()).toBe(tools);
    expect(sourceBytes(body.tools)?.buffer.byteLength).toBeLessThanOrEqual(Buffer.poolSize);
    expect(sourceBytes(body.messages)?.length).toBeGreaterThan(100_000);
  });

  it('sends a member of 64 KiB or more as a piece of its own, never copying it into a joined buffer', () => {
    const content = 'x'.repeat(70_000);
    const body = parse(`{"model":"m","messages":[{"role":"user","content":"${content}"}],"n":1}`);
    const sent = serializeJsonBody({ ...body, model: 'upstream-m' });
    expect(Array.isArray(sent)).toBe(true);
    const pieces = sent as readonly Buffer[];
    expect(pieces).toContain(sourceBytes(body.messages));
    expect(bodyByteLength(sent)).toBe(Buffer.concat(pieces).length);
    expect(bodyText(sent)).toBe(
      `{"model":"upstream-m","messages":[{"role":"user","content":"${content}"}],"n":1}`,
    );
    // Below that, one buffer as before.
    const medium = parse(
      `{"model":"m","messages":[{"role":"user","content":"${'y'.repeat(2 * MIN_SOURCE_BYTES)}"}]}`,
    );
    expect(Buffer.isBuffer(serializeJsonBody(medium))).toBe(true);
  });

  it('serialises a member under MIN_SOURCE_BYTES again, which costs less than remembering it', () => {
    const small = parse('{"model":"m","messages":[ {"role":"user","content":"hi"} ]}');
    expect(sourceBytes(small.messages)).toBeUndefined();
    expect(Object.isFrozen(small.messages)).toBe(false);
    expect(serializeJsonBody({ ...small, model: 'u' })).toBe(
      '{"model":"u","messages":[{"role":"user","content":"hi"}]}',
    );
  });

  it('leaves undefined members out, as JSON.stringify does', () => {
    const body = parse('{"messages":[1],"max_tokens":5}');
    const sent = serializeJsonBody({ ...body, max_tokens: undefined, max_completion_tokens: 5 });
    expect(sent.toString()).toBe('{"messages":[1],"max_completion_tokens":5}');
  });
});

describe('a top-level name written with escapes', () => {
  it('never lets another member’s bytes stand for the value JSON.parse kept', () => {
    // JSON.parse keeps the last of two members that decode to the same name; the escaped one is that name too.
    const secret = `[{"role":"user","content":"SECRET ${'a'.repeat(MIN_SOURCE_BYTES)}"}]`;
    const clean = `[{"role":"user","content":"clean ${'b'.repeat(MIN_SOURCE_BYTES)}"}]`;
    const body = parse(`{"model":"m","messages":${secret},"m\\u0065ssages":${clean}}`);
    expect(JSON.stringify(body.messages)).toContain('clean');
    const sent = bodyText(serializeJsonBody({ ...body, model: 'u' }));
    expect(sent).not.toContain('SECRET');
    expect(JSON.parse(sent)).toEqual({ model: 'u', messages: JSON.parse(clean) });
  });
});
