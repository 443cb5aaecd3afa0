import { describe, expect, it } from 'vitest';
import { scrubUpstreamText, truncate } from './scrub-upstream-text.js';

const KEY = 'prov-key-0123456789abcdefXYZ';

describe('scrubUpstreamText', () => {
  it.each([
    ['a Bearer header', 'Authorization: Bearer abc.def-ghi', 'abc.def-ghi'],
    ['a Basic header', 'sent Basic dXNlcjpwYXNz to us', 'dXNlcjpwYXNz'],
    ['an sk- key', 'Incorrect API key provided: sk-proj-AbC123xyz789.', 'sk-proj-AbC123xyz789'],
    ['an sk_ key', 'key sk_live_51Habcdef rejected', 'sk_live_51Habcdef'],
    ['an Anthropic key', 'invalid x sk-ant-api03-abcDEF123', 'sk-ant-api03-abcDEF123'],
    ['a Google key', 'bad AIzaSyA1234567890abcdefghijklmno', 'AIzaSyA1234567890abcdefghijklmno'],
    ['a key= query', 'GET /v1beta/models?key=hunter2secret&alt=sse failed', 'hunter2secret'],
    ['an api_key=', 'api_key=abcd1234 is invalid', 'abcd1234'],
    ['an x-api-key header', 'header x-api-key: zzz-top-999 unknown', 'zzz-top-999'],
    ['a JSON token member', '{"token": "tok-7f7f7f"}', 'tok-7f7f7f'],
    [
      'a long hex token',
      'signature 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 bad',
      '9f86d08',
    ],
    [
      'a long base64 token',
      'session eyJhbGciOiJIUzI1NiJ9eyJzdWIiOiIxMjM0NTY3ODkwIn0 expired',
      'eyJhbGciOiJIUzI1NiJ9',
    ],
    // Credential names made of several words, as configs and cloud SDKs spell them.
    ['a secret_key=', 'bad secret_key=abc123xyz for bucket', 'abc123xyz'],
    ['a private_key:', 'private_key: xyz999abc is malformed', 'xyz999abc'],
    ['an aws_secret_access_key=', 'aws_secret_access_key=wJalrXUtnFEMI/K7MDENG rejected', 'wJalrXUtnFEMI'],
    ['a camel-case secretKey', '{"secretKey": "hunter2hunter"} refused', 'hunter2hunter'],
    ['a session_token=', 'session_token=tok123abc expired', 'tok123abc'],
    ['a pwd=', 'login failed for pwd=hunter2', 'hunter2'],
    ['an escaped JSON api_key', 'body {\\"api_key\\": \\"zzz111\\"} invalid', 'zzz111'],
    // An upstream that echoes a URL it was configured with (a proxy, its own database) with the password in it.
    [
      'a password in an https URL',
      'connect https://admin:hunter2pass@db.example:5432/x failed',
      'hunter2pass',
    ],
    ['a URL-encoded password in a URL', 'proxy http://user:p%40ss-word@proxy.local failed', 'p%40ss-word'],
    ['a password without a user in a URL', 'redis://:s3cretpw@redis:6379 is down', 's3cretpw'],
  ])('removes %s', (_name, text, secret) => {
    const scrubbed = scrubUpstreamText(text, []);
    expect(scrubbed).not.toContain(secret);
    expect(scrubbed).toContain('[redacted]');
  });

  it('removes the configured key raw, URL-encoded, base64 and base64url', () => {
    const key = 'a+b/c=d?key-0123456789';
    const forms = [
      key,
      encodeURIComponent(key),
      Buffer.from(key).toString('base64'),
      Buffer.from(key).toString('base64url'),
    ];
    const scrubbed = scrubUpstreamText(`echo: ${forms.join(' | ')}`, [key]);
    for (const form of forms) expect(scrubbed).not.toContain(form);
    expect(scrubbed.match(/\[redacted\]/g)?.length).toBe(4);
  });

  it('removes a configured key that has no credential shape', () => {
    expect(scrubUpstreamText(`you sent ${KEY} which we do not know`, [KEY])).toBe(
      'you sent [redacted] which we do not know',
    );
  });

  it('keeps ordinary vendor messages as they are', () => {
    for (const text of [
      'bad tool schema',
      "Invalid value for 'temperature': must be between 0 and 2.",
      'max_tokens: Field required',
      'The model is overloaded. Please try again later.',
      'Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min (TPM).',
      'model claude-3-5-sonnet-20241022 not found',
      'See https://api.example.com:443/v1/docs#errors or mail help@example.com.',
    ]) {
      expect(scrubUpstreamText(text, [KEY, 'k1'])).toBe(text);
    }
  });

  it('redacts a configured key after an auth scheme once, leaving no stray bracket', () => {
    expect(scrubUpstreamText(`Overloaded. Bearer ${KEY} done`, [KEY])).toBe(
      'Overloaded. Bearer [redacted] done',
    );
    expect(scrubUpstreamText(`sent Basic ${KEY}, Token ${KEY}`, [KEY])).toBe(
      'sent Basic [redacted], Token [redacted]',
    );
  });

  it('keeps the user of a URL and removes a password that holds an unencoded @ whole', () => {
    expect(scrubUpstreamText('no route to https://bob:p@ss@host.example/v1', [])).toBe(
      'no route to https://bob:[redacted]@host.example/v1',
    );
  });

  it('ignores configured keys too short to search for', () => {
    expect(scrubUpstreamText('k1 and k2 failed', ['k1'])).toBe('k1 and k2 failed');
  });

  it('collapses whitespace and cuts to 300 characters', () => {
    const scrubbed = scrubUpstreamText(`a\n\n  b ${'word '.repeat(200)}`, []);
    expect(scrubbed.startsWith('a b word')).toBe(true);
    expect(scrubbed.length).toBe(300);
    expect(scrubbed.endsWith('…')).toBe(true);
  });
});

describe('truncate', () => {
  it('never splits a surrogate pair', () => {
    const cut = truncate('😀'.repeat(10), 5);
    expect(cut.length).toBeLessThanOrEqual(5);
    expect(cut).toBe('😀😀…');
  });
});
