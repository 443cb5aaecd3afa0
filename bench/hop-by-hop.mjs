// Headers that describe one connection, not the message: a proxy must not forward them (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

/** Copies `headers` without the hop-by-hop ones. */
export function withoutHopByHop(headers) {
  const out = {};
  for (const name in headers) {
    if (!HOP_BY_HOP.has(name)) out[name] = headers[name];
  }
  return out;
}
