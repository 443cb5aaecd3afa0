// What the benchmark and the soak share: the process group, CPU pinning, the fake upstream, the targets with
// their requests and clients, the load generator, and a probe of every target × kind before measuring.
import { cpus } from 'node:os';
import { buildRequests } from './bench-requests.mjs';
import { createClient } from './client.mjs';
import { startLoadGenerator } from './load-generator.mjs';
import { canPin, ProcessGroup, pinSelf, stopAllOnExit } from './processes.mjs';
import { startTargets, startUpstream } from './targets.mjs';

export const SERVER_CPU = 0;
export const LOAD_CPU = 1;

/** Decides pinning: servers on CPU 0; this process (the sequential client) and the load generator on CPU 1. */
function choosePinning(wanted) {
  if (!wanted) return { pin: false, description: 'no CPU pinning (--no-pin)' };
  if (cpus().length < 2) return { pin: false, description: 'no CPU pinning (one CPU)' };
  if (!canPin()) return { pin: false, description: 'no CPU pinning (taskset not available)' };
  if (!pinSelf(LOAD_CPU)) return { pin: false, description: 'no CPU pinning (taskset refused)' };
  return {
    pin: true,
    description: `taskset: servers (fake upstream, proxies, gateway, Portkey) on CPU ${SERVER_CPU}; load generator and measuring client on CPU ${LOAD_CPU}`,
  };
}

/**
 * Starts everything for a run and returns `{ group, pinning, upstream, targets, load }`, where `targets` are
 * the available ones, each with `requests`, `client` and `failed` (kind → reason), and `unavailable` the rest.
 */
export async function setUp({ names, pin, kinds, log, gatewayNodeArgs }) {
  const group = new ProcessGroup({ pin: false });
  stopAllOnExit(group);
  const pinning = choosePinning(pin);
  group.pin = pinning.pin;
  log(pinning.description);
  const upstream = await startUpstream(group, SERVER_CPU);
  const all = await startTargets(group, names, { upstream, cpu: SERVER_CPU, log, gatewayNodeArgs });
  const load = await startLoadGenerator(group, LOAD_CPU);
  const targets = all.filter((t) => !t.unavailable);
  for (const target of targets) {
    target.requests = buildRequests(target.models);
    target.client = createClient(target, target.requests);
    target.failed = {};
  }
  for (const target of targets) {
    for (const kind of kinds) {
      const reason = await target.client.probe(kind);
      if (reason) {
        target.failed[kind] = reason;
        log(`${target.name} ${kind}: ${reason}`);
      }
    }
  }
  return { group, pinning, upstream, targets, unavailable: all.filter((t) => t.unavailable), load };
}
