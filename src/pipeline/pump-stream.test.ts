import { describe, expect, it } from 'vitest';
import type { PartRead } from '../providers/part-stream.js';
import type { StreamFramer } from './endpoint.js';
import { pumpStream } from './pump-stream.js';
import type { EventSink } from './transport.js';

/** A sink that logs what the pump asks of it, in order. */
function loggingSink(log: string[]): EventSink {
  return {
    started: true,
    isClosed: false,
    raw: (frame) => {
      log.push(`raw:${String(frame)}`);
      return true;
    },
    drained: async () => undefined,
    end: () => log.push('end'),
    destroy: () => log.push('destroy'),
    stopKeepAlive: () => undefined,
    holdToEnd: () => log.push('holdToEnd'),
  };
}

function pump(parts: string[], log: string[], failAt?: number, held: PartRead<string>[] = []) {
  const rest = parts.slice(1);
  const framer = {
    frame: (part: string) => {
      if (part === parts[failAt ?? -1]) throw new Error('upstream failed');
      return part;
    },
    end: () => 'closing',
  } as unknown as StreamFramer<string>;
  return pumpStream({
    sse: loggingSink(log),
    opened: {
      first: { done: false, value: parts[0] ?? '' },
      held,
      reader: {
        read: async () => {
          log.push('read');
          const value = rest.shift();
          return value === undefined ? { done: true } : { done: false, value };
        },
        cancel: async () => {
          log.push('cancel');
        },
      },
      warnings: [],
    },
    framer,
    settle: () => {
      throw new Error('not used');
    },
    progress: { firstTokenAt: undefined },
    now: () => 0,
    stalledClientTimeoutMs: 1_000,
    beforeLastByte: async () => {
      log.push('journaled');
    },
  });
}

describe('pumpStream', () => {
  it('holds the last frames once the upstream ended, journals, then sends the closing frames and ends', async () => {
    const log: string[] = [];
    await pump(['a', 'b'], log);
    expect(log).toEqual(['raw:a', 'read', 'raw:b', 'read', 'holdToEnd', 'journaled', 'raw:closing', 'end']);
  });

  it('frames the parts openStream held after the first, in order, before reading on', async () => {
    const log: string[] = [];
    await pump(['a', 'd'], log, undefined, [
      { done: false, value: 'b' },
      { done: false, value: 'c' },
    ]);
    expect(log).toEqual([
      'raw:a',
      'raw:b',
      'raw:c',
      'read',
      'raw:d',
      'read',
      'holdToEnd',
      'journaled',
      'raw:closing',
      'end',
    ]);
  });

  it('ends at a held end of the stream without reading again', async () => {
    const log: string[] = [];
    await pump(['a', 'never read'], log, undefined, [{ done: false, value: 'b' }, { done: true }]);
    expect(log).toEqual(['raw:a', 'raw:b', 'holdToEnd', 'journaled', 'raw:closing', 'end']);
  });

  it('holds nothing when the stream fails midway (the pipeline answers the error in-stream)', async () => {
    const log: string[] = [];
    await expect(pump(['a', 'b', 'c'], log, 1)).rejects.toThrow('upstream failed');
    expect(log).toEqual(['raw:a', 'read', 'cancel']);
  });
});
