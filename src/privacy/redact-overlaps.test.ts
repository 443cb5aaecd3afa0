import { describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import {
  MAX_CUSTOM_TERM_CHARS,
  MAX_CUSTOM_TERMS,
  type RedactSettings,
} from '../gateway-settings/gateway-settings.js';
import { createRedactor, redactText } from './redact-text.js';

const ALL: RedactSettings = {
  email: true,
  phone: true,
  ip: true,
  uuid: true,
  token: true,
  credit_card: true,
  iban: true,
  ssn: true,
  mac: true,
};

describe('custom terms', () => {
  it.each([
    [['Project Falcon'], 'Status of PROJECT FALCON: on track', 'Status of ****: on track'],
    [['Project Falcon'], 'project\n  falcon slipped', '**** slipped'],
    [['Falcon'], 'Falconry and the falcon', 'Falconry and the ****'],
    [['C++'], 'We write C++ and C', 'We write **** and C'],
    [['a.b'], 'a.b is not axb', '**** is not axb'],
    [['$100k (Q3)'], 'Budget: $100K (q3) approved', 'Budget: **** approved'],
    [['Zürich'], 'Office in ZÜRICH', 'Office in ****'],
    [['Project', 'Project Falcon'], 'Project Falcon and Project X', '**** and **** X'],
    [['   '], 'nothing to hide', 'nothing to hide'],
  ])('%j in %j', (custom, input, expected) => {
    expect(redactText(input, { custom }).text).toBe(expected);
  });

  it('counts each occurrence', () => {
    expect(redactText('Acme, ACME and acme', { custom: ['acme'] }).counts).toEqual({ custom: 3 });
  });

  // bug: a term too long for V8's regex compiler was a 500 whose message (and log line) quoted the term
  it('refuses terms too long to compile with 400 INVALID_GATEWAY_SETTINGS, never echoing them', () => {
    const term = `Project-Falcon-${'x'.repeat(30_000)}`;
    // Node 20's V8 refuses a term this long on the regex's first use ("Stack overflow", quoting the pattern);
    // newer V8s take it. The refusal is made certain here, as V8 words it, so that every version tests the 400.
    const compile = vi.spyOn(RegExp.prototype, 'test').mockImplementationOnce(function (this: RegExp) {
      throw new SyntaxError(`Invalid regular expression: /${this.source}/giu: Stack overflow`);
    });
    let caught: unknown;
    try {
      createRedactor({ custom: [term] });
    } catch (error) {
      caught = error;
    } finally {
      compile.mockRestore();
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect(caught).toMatchObject({
      status: 400,
      code: 'INVALID_GATEWAY_SETTINGS',
      param: 'gateway.redact.custom',
    });
    expect((caught as GatewayError).message).not.toContain('Project-Falcon');
  });

  it('takes the largest term lists the settings allow', () => {
    const longest = Array.from({ length: 10 }, (_, i) => `${i}${'y'.repeat(MAX_CUSTOM_TERM_CHARS - 1)}`);
    const most = Array.from({ length: MAX_CUSTOM_TERMS }, (_, i) => `term${i}`.padEnd(10, 'z'));
    expect(redactText(`see ${longest[3]} now`, { custom: longest }).text).toBe('see **** now');
    expect(redactText('term7zzzzz and term77zzzz', { custom: most }).text).toBe('**** and ****');
  });
});

describe('overlaps: one pass, longest then most specific', () => {
  it.each([
    [
      'an email whose domain starts with an IP is one email',
      'user@10.0.0.1.nip.io',
      'u****r@1****p.io',
      { email: 1 },
    ],
    [
      'a JWT is not a phone number',
      'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxNTU1MTIzNDU2NyJ9.c2lnbmF0dXJlLTEyMzQ1Njc4OTA',
      'token eyJ****.eyJ****.****',
      { token: 1 },
    ],
    [
      'URL password and IP host are masked separately',
      'postgres://admin:s3cret@10.0.0.5:5432/app',
      'postgres://admin:****@**.*.*.*:5432/app',
      { token: 1, ip: 1 },
    ],
    [
      'a Bearer key is one token',
      'Bearer sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
      'Bearer ****4z',
      { token: 1 },
    ],
    [
      'an IBAN is not a card or a phone',
      'DE89 3704 0044 0532 0130 00',
      'DE** **** **** **** **** *0',
      { iban: 1 },
    ],
    [
      'a custom term inside an email does not split it',
      'christian@gmail.com',
      'c****n@g****l.com',
      { email: 1 },
    ],
  ])('%s', (_, input, expected, counts) => {
    const result = redactText(input, { ...ALL, custom: ['gmail'] });
    expect(result.text).toBe(expected);
    expect(result.counts).toEqual(counts);
  });

  it('masks several kinds in one text and counts them', () => {
    const input =
      'Hi, I am Jane (jane.doe@example.com, +1 (555) 123-4567). Card 4111 1111 1111 1111, ' +
      'IBAN GB82 WEST 1234 5698 7654 32, SSN 123-45-6789, laptop 00:1A:2B:3C:4D:5E at 192.168.1.42, ' +
      'ticket 123e4567-e89b-12d3-a456-426614174000, key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z.';
    const result = redactText(input, { ...ALL, custom: ['Jane'] });
    expect(result.text).toBe(
      'Hi, I am **** (j****e@e****e.com, +1 (5**) ***-***7). Card 41** **** **** ***1, ' +
        'IBAN GB** **** **** **** **** *2, SSN 12*-**-***9, laptop 00:**:**:**:**:*E at 19*.***.*.*2, ' +
        'ticket 12******-****-****-****-***********0, key sk-proj-****4z.',
    );
    expect(result.counts).toEqual({
      custom: 1,
      email: 1,
      phone: 1,
      credit_card: 1,
      iban: 1,
      ssn: 1,
      mac: 1,
      ip: 1,
      uuid: 1,
      token: 1,
    });
  });

  it('runs only the enabled detectors', () => {
    const input = 'mail jo.hnson@example.com from 192.168.1.42 card 4111111111111111';
    expect(redactText(input, { ip: true }).text).toBe(
      'mail jo.hnson@example.com from 19*.***.*.*2 card 4111111111111111',
    );
    expect(redactText(input, { email: false, ip: false }).text).toBe(input);
  });

  it('leaves a text alone when nothing is enabled', () => {
    const redactor = createRedactor({});
    expect(redactor.active).toBe(false);
    expect(redactor.redact('christian@gmail.com')).toEqual({ text: 'christian@gmail.com', counts: {} });
    expect(createRedactor({ custom: ['x'] }).active).toBe(true);
  });

  it('never matches a mask again (idempotent on its own output)', () => {
    const once = redactText('christian@gmail.com 4111 1111 1111 1111 10.0.0.1', ALL);
    expect(redactText(once.text, ALL)).toEqual({ text: once.text, counts: {} });
  });

  it('stays linear on long texts without separators', () => {
    const input = `${'a'.repeat(200_000)}@${'b'.repeat(200_000)} +${'1'.repeat(100_000)}x`;
    const started = performance.now();
    expect(redactText(input, ALL).text).toBe(input);
    // Only quadratic behaviour can reach this bound: a linear pass takes about 10 ms (1,000 times less, so no
    // loaded machine comes near it), while a detector that rescans a 200,000-character run from each start
    // takes some 10^10 steps, tens of seconds. (The test's timeout is above the bound, so the bound is what
    // fails.)
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 30_000);
});
