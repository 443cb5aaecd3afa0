import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createClientAddress, MAX_FORWARDED_HOPS, parseTrustedProxy } from './client-address.js';

const request = (remoteAddress: string | undefined, forwardedFor?: string | string[]) =>
  ({
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    socket: { remoteAddress },
  }) as unknown as IncomingMessage;

/** A load balancer at 10.0.0.5 and a proxy range behind it, IPv6 included. */
const behindProxies = createClientAddress([
  '10.0.0.0/24',
  '192.168.1.1',
  'fd00::/8',
  '::ffff:172.16.0.0/108',
]);
const address = (remote: string | undefined, forwardedFor?: string | string[]) =>
  behindProxies(request(remote, forwardedFor));

describe('client address without trusted proxies (the default)', () => {
  const peerOnly = createClientAddress([]);

  it('is the TCP peer, whatever X-Forwarded-For says', () => {
    expect(peerOnly(request('10.0.0.5', '203.0.113.7'))).toBe('10.0.0.5');
    expect(peerOnly(request('203.0.113.9', '203.0.113.7'))).toBe('203.0.113.9');
    expect(peerOnly(request(undefined, '203.0.113.7'))).toBe('unknown');
  });

  it('reads no header at all', () => {
    const req = request('10.0.0.5');
    Object.defineProperty(req, 'headers', {
      get: () => {
        throw new Error('headers read');
      },
    });
    expect(peerOnly(req)).toBe('10.0.0.5');
  });
});

describe('client address behind trusted proxies', () => {
  it('ignores X-Forwarded-For from an untrusted peer', () => {
    expect(address('203.0.113.9', '203.0.113.7')).toBe('203.0.113.9');
    expect(address('10.0.1.5', '203.0.113.7')).toBe('10.0.1.5');
    expect(address('2001:db8::1', '203.0.113.7')).toBe('2001:db8::1');
  });

  it('takes the forwarded address from a trusted peer', () => {
    expect(address('10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    expect(address('192.168.1.1', '203.0.113.7')).toBe('203.0.113.7');
    expect(address('fd12::1', '203.0.113.7')).toBe('203.0.113.7');
  });

  it('walks a chain of trusted proxies from the right to the first untrusted entry', () => {
    expect(address('10.0.0.5', '203.0.113.7, 10.0.0.9, 192.168.1.1')).toBe('203.0.113.7');
    expect(address('10.0.0.5', '203.0.113.7,fd00::3')).toBe('203.0.113.7');
  });

  it('never believes entries left of the first untrusted one (a client forges those)', () => {
    expect(address('10.0.0.5', '1.1.1.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(address('10.0.0.5', '10.0.0.1, 198.51.100.4, 203.0.113.7, 10.0.0.9')).toBe('203.0.113.7');
    expect(address('10.0.0.5', 'garbage, <script>, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('takes the left-most entry when every entry is trusted', () => {
    expect(address('10.0.0.5', '10.0.0.7, 10.0.0.9')).toBe('10.0.0.7');
  });

  it('reads IPv6 entries, with or without brackets and ports', () => {
    expect(address('10.0.0.5', '2001:db8::7')).toBe('2001:db8::7');
    expect(address('10.0.0.5', '[2001:db8::7]')).toBe('2001:db8::7');
    expect(address('10.0.0.5', '[2001:db8::7]:443')).toBe('2001:db8::7');
    expect(address('::1', '2001:db8::7')).toBe('::1');
  });

  it('treats IPv4-mapped IPv6 as IPv4, for the peer, the entries and the ranges', () => {
    expect(address('::ffff:10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    expect(address('10.0.0.5', '::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(address('10.0.0.5', '[::ffff:203.0.113.7]:80')).toBe('203.0.113.7');
    expect(address('10.0.0.5', '203.0.113.7, ::ffff:10.0.0.9')).toBe('203.0.113.7');
    expect(address('172.16.3.4', '203.0.113.7')).toBe('203.0.113.7');
    expect(address('::ffff:172.16.3.4', '203.0.113.7')).toBe('203.0.113.7');
    expect(address('::ffff:203.0.113.9', '203.0.113.7')).toBe('::ffff:203.0.113.9');
  });

  it('strips ports and spaces', () => {
    expect(address('10.0.0.5', '  203.0.113.7:5678  ')).toBe('203.0.113.7');
    expect(address('10.0.0.5', '203.0.113.7\t,\t10.0.0.9:80')).toBe('203.0.113.7');
  });

  it('skips empty entries (many commas)', () => {
    expect(address('10.0.0.5', ',,, 203.0.113.7 ,,, ,')).toBe('203.0.113.7');
    expect(address('10.0.0.5', ',,,,')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '')).toBe('10.0.0.5');
  });

  it('reads header lines joined by Node, and an array of lines', () => {
    expect(address('10.0.0.5', '1.1.1.1, 203.0.113.7, 10.0.0.9')).toBe('203.0.113.7');
    expect(address('10.0.0.5', ['1.1.1.1', '203.0.113.7'])).toBe('203.0.113.7');
  });

  it('falls back to the peer when the header is absent or the entry it needs is not an address', () => {
    expect(address('10.0.0.5')).toBe('10.0.0.5');
    expect(address('10.0.0.5', 'unknown')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '203.0.113.7, not-an-ip')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '203.0.113.7:')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '203.0.113.7:99999999')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '[203.0.113.7]')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '[2001:db8::7')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '[2001:db8::7]x')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '2001:db8::7:')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '203.0.113.7/24')).toBe('10.0.0.5');
    expect(address('10.0.0.5', '999.0.113.7')).toBe('10.0.0.5');
    expect(address(undefined, '203.0.113.7')).toBe('unknown');
  });

  it('examines at most MAX_FORWARDED_HOPS entries of a long header, and never throws on one', () => {
    const trustedHops = Array.from({ length: 2_000 }, (_, i) => `10.0.0.${i % 250}`);
    const header = ['203.0.113.7', ...trustedHops].join(', ');
    expect(header.length).toBeGreaterThan(10_000);
    // Every examined entry is trusted: the left-most examined one, never the forged far left.
    expect(address('10.0.0.5', header)).toBe(trustedHops[trustedHops.length - MAX_FORWARDED_HOPS]);
    expect(address('10.0.0.5', `${'x'.repeat(10_000)}, 203.0.113.7`)).toBe('203.0.113.7');
    expect(address('10.0.0.5', `203.0.113.7 ${'x'.repeat(10_000)}`)).toBe('10.0.0.5');
    expect(address('10.0.0.5', `${','.repeat(10_000)}203.0.113.7${','.repeat(10_000)}`)).toBe('203.0.113.7');
  });

  it('computes the address once per request', () => {
    const req = request('10.0.0.5', '203.0.113.7');
    let reads = 0;
    const headers = req.headers;
    Object.defineProperty(req, 'headers', {
      get: () => {
        reads += 1;
        return headers;
      },
    });
    expect(behindProxies(req)).toBe('203.0.113.7');
    expect(behindProxies(req)).toBe('203.0.113.7');
    expect(reads).toBe(1);
  });
});

describe('parseTrustedProxy', () => {
  it.each([
    ['10.0.0.1', { address: '10.0.0.1', prefix: 32, family: 'ipv4' }],
    ['10.0.0.0/8', { address: '10.0.0.0', prefix: 8, family: 'ipv4' }],
    ['0.0.0.0/0', { address: '0.0.0.0', prefix: 0, family: 'ipv4' }],
    ['::1', { address: '::1', prefix: 128, family: 'ipv6' }],
    ['fd00::/8', { address: 'fd00::', prefix: 8, family: 'ipv6' }],
    ['::ffff:10.0.0.1', { address: '10.0.0.1', prefix: 32, family: 'ipv4' }],
    ['::ffff:10.0.0.0/104', { address: '10.0.0.0', prefix: 8, family: 'ipv4' }],
  ])('reads %s', (entry, range) => {
    expect(parseTrustedProxy(entry)).toEqual(range);
  });

  it.each([
    '',
    'localhost',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.0/ 8',
    ' 10.0.0.1',
    '10.0.0.256',
    'fd00::/129',
    '::ffff:10.0.0.0/95',
    '10.0.0.1:80',
    '[::1]',
  ])('refuses %j', (entry) => {
    expect(parseTrustedProxy(entry)).toBeUndefined();
  });
});
