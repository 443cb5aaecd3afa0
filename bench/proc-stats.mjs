// CPU time and resident memory of a server process and its descendants, read from /proc (Linux only; elsewhere
// every reading is null and the report says "n/a").
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Fields of /proc/PID/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** `pid` and every live descendant (a worker-thread pool shows up as threads, a cluster as children). */
export function processTree(pid) {
  let parents;
  try {
    parents = new Map();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const ppid = Number(statFields(entry)[1]);
        if (!parents.has(ppid)) parents.set(ppid, []);
        parents.get(ppid).push(Number(entry));
      } catch {
        // exited while we looked
      }
    }
  } catch {
    return [pid];
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i]) ?? []));
  return tree;
}

/**
 * CPU time (user + system, ms) used so far by `pid`, its reaped children and its live descendants.
 * Resolution is one clock tick (10 ms at 100 Hz), so measure over hundreds of ms of work.
 */
export function cpuTimeMs(pid) {
  try {
    let ticks = 0;
    for (const member of processTree(pid)) {
      const f = statFields(member);
      // utime, stime, cutime, cstime are fields 14–17 of stat; f[0] is field 3
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    }
    return (ticks * 1000) / clockTicks();
  } catch {
    return null;
  }
}

/** Resident memory (VmRSS, MB) of `pid` and its live descendants. */
export function rssMb(pid) {
  try {
    let kb = 0;
    for (const member of processTree(pid)) {
      const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${member}/status`, 'utf8'));
      if (match) kb += Number(match[1]);
    }
    return kb / 1024;
  } catch {
    return null;
  }
}

/** Samples `rssMb(pid)` every `intervalMs` until `stop()`; returns the peak. */
export function sampleRss(pid, intervalMs = 250) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const value = rssMb(pid);
    if (value !== null && (peak === null || value > peak)) peak = value;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const value = rssMb(pid);
      if (value !== null && (peak === null || value > peak)) peak = value;
      return peak;
    },
  };
}
