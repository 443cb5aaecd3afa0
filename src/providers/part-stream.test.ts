import { describe, expect, it } from 'vitest';
import { asWebStream, listedParts, type PartSource, PulledParts } from './part-stream.js';

/** A source that yields the given batches, one per pull, and counts pulls and cancels. */
function batches(list: (number[] | Error)[]) {
  const stats = { pulls: 0, cancels: 0 };
  const source: PartSource<number> = {
    async pull(push) {
      stats.pulls += 1;
      const next = list.shift();
      if (next instanceof Error) throw next;
      for (const part of next ?? []) push(part);
      return list.length > 0;
    },
    cancel: async () => {
      stats.cancels += 1;
    },
  };
  return { stream: new PulledParts(source), stats };
}

describe('PulledParts', () => {
  it('hands out the parts of one pull without waiting, and pulls again only when they are taken', async () => {
    const { stream, stats } = batches([[1, 2, 3], [4]]);
    const reader = stream.getReader();
    expect(reader.take?.()).toBeUndefined();
    expect(await reader.read()).toEqual({ done: false, value: 1 });
    expect(stats.pulls).toBe(1);
    expect(reader.take?.()).toEqual({ done: false, value: 2 });
    expect(reader.take?.()).toEqual({ done: false, value: 3 });
    expect(reader.take?.()).toBeUndefined();
    expect(stats.pulls).toBe(1);
    expect(await reader.read()).toEqual({ done: false, value: 4 });
    expect((await reader.read()).done).toBe(true);
    expect(reader.take?.()?.done).toBe(true);
    expect(stats.pulls).toBe(2);
  });

  it('hands out the parts read before a failure, then the failure; cancelling then closes the source', async () => {
    const failure = new Error('reset');
    const { stream, stats } = batches([[1], failure]);
    const reader = stream.getReader();
    expect((await reader.read()).value).toBe(1);
    await expect(reader.read()).rejects.toBe(failure);
    await expect(reader.read()).rejects.toBe(failure);
    await reader.cancel();
    expect(stats.cancels).toBe(1);
  });

  it('cancels the source when stopped midway, not after a normal end', async () => {
    const midway = batches([[1], [2]]);
    await midway.stream.getReader().read();
    await midway.stream.getReader().cancel();
    expect(midway.stats.cancels).toBe(1);
    const ended = listedParts([1]);
    const reader = ended.getReader();
    await reader.read();
    expect((await reader.read()).done).toBe(true);
    await reader.cancel();
  });

  it('pulls in `take` when the source can without waiting, and waits in `read` only when it cannot', async () => {
    // Each entry is one network read's parts; `null` is a read that has not arrived yet.
    const arrived: (number[] | null)[] = [[1, 2], [3], null, [4]];
    const stats = { now: 0, pulls: 0 };
    const source: PartSource<number> = {
      pullNow(push) {
        stats.now += 1;
        if (arrived.length === 0) return false;
        const next = arrived[0] as number[] | null;
        if (next === null) return undefined;
        arrived.shift();
        for (const part of next) push(part);
        return true;
      },
      async pull(push) {
        stats.pulls += 1;
        if (arrived[0] === null) arrived.shift();
        const now = source.pullNow?.(push);
        return now !== false;
      },
      cancel: async () => undefined,
    };
    const reader = new PulledParts(source).getReader();
    expect(reader.take?.()).toEqual({ done: false, value: 1 });
    expect(reader.take?.()).toEqual({ done: false, value: 2 });
    expect(reader.take?.()).toEqual({ done: false, value: 3 });
    expect(stats.pulls).toBe(0);
    // The next read has not arrived: `take` answers undefined and `read` waits for it.
    expect(reader.take?.()).toBeUndefined();
    expect(await reader.read()).toEqual({ done: false, value: 4 });
    expect(stats.pulls).toBe(1);
    expect(reader.take?.()?.done).toBe(true);
    expect(stats.pulls).toBe(1);
  });

  it('waits on `ready` (not `pull`) when the source has it, and reports a failure pullNow throws after it', async () => {
    const failure = new Error('reset');
    const steps: (number | 'wait' | Error)[] = [1, 'wait', 2, 'wait', failure];
    let readies = 0;
    let wake: (() => void) | undefined;
    const reader = new PulledParts<number>({
      pullNow(push) {
        const step = steps[0];
        if (step === 'wait') return undefined;
        steps.shift();
        if (step instanceof Error) throw step;
        if (step === undefined) return false;
        push(step);
        return true;
      },
      ready: () => {
        readies += 1;
        return new Promise<void>((resolve) => {
          wake = () => {
            steps.shift();
            resolve();
          };
        });
      },
      pull: async () => {
        throw new Error('not used when the source has ready');
      },
      cancel: async () => undefined,
    }).getReader();
    expect(await reader.read()).toEqual({ done: false, value: 1 });
    const second = reader.read();
    await Promise.resolve();
    expect(readies).toBe(1);
    wake?.();
    expect(await second).toEqual({ done: false, value: 2 });
    const third = reader.read();
    await Promise.resolve();
    wake?.();
    await expect(third).rejects.toBe(failure);
    expect(readies).toBe(2);
  });

  it('hands out the parts a pull without waiting pushed before it failed, then the failure', async () => {
    const failure = new Error('bad event');
    const reader = new PulledParts<number>({
      pullNow(push) {
        push(1);
        throw failure;
      },
      pull: async () => {
        throw new Error('not reached');
      },
      cancel: async () => undefined,
    }).getReader();
    expect(reader.take?.()).toEqual({ done: false, value: 1 });
    expect(reader.take?.()).toBeUndefined();
    await expect(reader.read()).rejects.toBe(failure);
  });

  it('hands out listed parts (a cached answer) without a read', () => {
    const reader = listedParts([1, 2]).getReader();
    expect(reader.take?.()).toEqual({ done: false, value: 1 });
    expect(reader.take?.()).toEqual({ done: false, value: 2 });
    expect(reader.take?.()?.done).toBe(true);
  });

  it('reads as a web stream for the codecs that pipe it', async () => {
    const read: number[] = [];
    await asWebStream(listedParts([1, 2, 3])).pipeTo(
      new WritableStream({ write: (part) => void read.push(part) }),
    );
    expect(read).toEqual([1, 2, 3]);
  });
});
