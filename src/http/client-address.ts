import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * The address of the client of a request, as the failed-authentication throttles count it: the TCP peer, or,
 * when the peer is a trusted proxy (`server.trustedProxies`), the address it forwarded in `X-Forwarded-For`.
 */
export type ClientAddress = (req: IncomingMessage) => string;

/**
 * `X-Forwarded-For` entries examined at most, from the right. Real chains are a few proxies long; past this
 * many trusted hops the left-most examined one is taken. `BlockList.check` costs some microseconds, and a
 * 16 KB header holds thousands of entries: this bounds the work a request can cause.
 */
export const MAX_FORWARDED_HOPS = 32;

/** One entry of `server.trustedProxies`, parsed: an address with the prefix length of its range. */
export interface TrustedProxyRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

const MAPPED_IPV4 = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** `::ffff:10.0.0.1` as `10.0.0.1`, so that a client counts as one address however its stack wrote it. */
function unmapped(address: string): string {
  return MAPPED_IPV4.exec(address)?.[1] ?? address;
}

/**
 * Parses one `server.trustedProxies` entry: an IPv4 or IPv6 address, or a CIDR range (`10.0.0.0/8`,
 * `fd00::/8`); an IPv4-mapped IPv6 address (`::ffff:10.0.0.0/104`) is taken as IPv4. Undefined when the
 * entry is neither.
 */
export function parseTrustedProxy(entry: string): TrustedProxyRange | undefined {
  const slash = entry.indexOf('/');
  const text = slash === -1 ? entry : entry.slice(0, slash);
  const prefixText = slash === -1 ? undefined : entry.slice(slash + 1);
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const mapped = MAPPED_IPV4.exec(text)?.[1];
  const family = isIP(mapped ?? text);
  if (family === 0) return undefined;
  const bits = family === 4 ? 32 : 128;
  let prefix = prefixText === undefined ? bits : Number(prefixText);
  if (mapped !== undefined) prefix = prefixText === undefined ? 32 : prefix - 96;
  if (prefix < 0 || prefix > bits) return undefined;
  return { address: mapped ?? text, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/** The peer address of a request as Node saw it; `unknown` for a socket already gone. */
const peerAddress: ClientAddress = (req) => req.socket?.remoteAddress ?? 'unknown';

/**
 * The client address of each request under `trustedProxies` (already validated by the config schema). With
 * an empty list it is the TCP peer and headers are never read: the function costs what reading
 * `socket.remoteAddress` costs. Otherwise it is computed once per request, on first use.
 */
export function createClientAddress(trustedProxies: readonly string[]): ClientAddress {
  if (trustedProxies.length === 0) return peerAddress;
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const range = parseTrustedProxy(entry);
    if (!range) throw new Error(`server.trustedProxies: "${entry}" is not an IP address or CIDR range`);
    trusted.addSubnet(range.address, range.prefix, range.family);
  }
  const isTrusted = (address: string) => trusted.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  const known = new WeakMap<IncomingMessage, string>();
  return (req) => {
    let address = known.get(req);
    if (address === undefined) {
      address = resolveClientAddress(req.socket?.remoteAddress, req.headers['x-forwarded-for'], isTrusted);
      known.set(req, address);
    }
    return address;
  };
}

/**
 * The client address behind a peer: the peer itself unless it is trusted; else the right-most entry of
 * `X-Forwarded-For` that is not a trusted proxy (entries left of it are whatever the client sent, never
 * believed), or the left-most examined one when all are trusted. An absent header, or an entry that is not
 * an address where one is needed, gives the peer. Never throws.
 */
export function resolveClientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  isTrusted: (address: string) => boolean,
): string {
  if (peer === undefined) return 'unknown';
  if (!isIP(peer) || !isTrusted(peer)) return peer;
  // Node joins repeated header lines with ", "; an array only comes from a caller building headers by hand.
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  if (header === undefined) return peer;
  let end = header.length;
  let found: string | undefined;
  for (let hops = 0; end > 0 && hops < MAX_FORWARDED_HOPS; ) {
    const comma = header.lastIndexOf(',', end - 1);
    const entry = header.slice(comma + 1, end).trim();
    end = comma === -1 ? 0 : comma;
    if (entry === '') continue;
    hops += 1;
    const address = forwardedAddress(entry);
    if (address === undefined) return peer;
    found = address;
    if (!isTrusted(address)) break;
  }
  return found ?? peer;
}

/**
 * The address of one `X-Forwarded-For` entry, without a port (`1.2.3.4:5678`, `[::1]:80`, `[::1]`), or
 * undefined when the entry is not an address.
 */
function forwardedAddress(entry: string): string | undefined {
  let text = entry;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    const rest = text.slice(close + 1);
    if (close === -1 || (rest !== '' && !/^:\d{1,5}$/.test(rest))) return undefined;
    text = text.slice(1, close);
    return isIP(text) === 6 ? unmapped(text) : undefined;
  }
  const colon = text.indexOf(':');
  if (colon !== -1 && colon === text.lastIndexOf(':')) {
    if (!/^\d{1,5}$/.test(text.slice(colon + 1))) return undefined;
    text = text.slice(0, colon);
    return isIP(text) === 4 ? text : undefined;
  }
  return isIP(text) === 0 ? undefined : unmapped(text);
}
