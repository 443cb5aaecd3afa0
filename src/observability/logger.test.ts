import { execFileSync, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, LineBatches, LOG_MAX_PENDING_BYTES, logInfoFields, prettyLine } from './logger.js';

describe('createLogger', () => {
  it('writes JSON lines with a level word and an ISO time, at LOG_LEVEL and above', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      format: 'json',
      terminal: true,
      destination: { write: (line: string) => void lines.push(line) },
    });
    logger.info('hidden');
    logger.warn({ dependency: 'redis' }, 'redis is unavailable');
    expect(lines).toHaveLength(1);
    const entry: unknown = JSON.parse(lines[0] ?? '');
    expect(entry).toMatchObject({ level: 'warn', msg: 'redis is unavailable', dependency: 'redis' });
    expect(entry).toHaveProperty('time', expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
  });
});

describe('logInfoFields', () => {
  const capture = (level: 'info' | 'warn') => {
    const lines: string[] = [];
    const logger = createLogger({
      level,
      format: 'json',
      terminal: false,
      destination: { write: (line: string) => void lines.push(line) },
    });
    return { logger, lines };
  };
  const withoutTime = (line: string | undefined) => (line ?? '').replace(/"time":"[^"]*"/, '"time":"T"');

  it("writes pino's own line, byte for byte: fields in order, undefined ones left out, text escaped", () => {
    const fields = {
      requestId: 'req_1',
      status: 200,
      durationMs: 1.25,
      org: undefined,
      model: 'openai/gpt-4o "mini" \\ \u0001 \u2028 ünïcode 🙂',
      streamed: false,
      cached: true,
      costNanoUsd: 0,
    };
    const ours = capture('info');
    const pinos = capture('info');
    logInfoFields(ours.logger, fields, 'request');
    pinos.logger.info(fields, 'request');
    expect(ours.lines).toHaveLength(1);
    expect(withoutTime(ours.lines[0])).toBe(withoutTime(pinos.lines[0]));
    expect(JSON.parse(ours.lines[0] ?? '')).toHaveProperty(
      'time',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    );
    const empty = capture('info');
    const emptyPino = capture('info');
    logInfoFields(empty.logger, {}, 'request');
    emptyPino.logger.info({}, 'request');
    expect(withoutTime(empty.lines[0])).toBe(withoutTime(emptyPino.lines[0]));
  });

  it("writes nothing below the logger's level", () => {
    const { logger, lines } = capture('warn');
    logInfoFields(logger, { requestId: 'req_1' }, 'request');
    expect(lines).toHaveLength(0);
  });
});

describe('prettyLine', () => {
  it('turns a JSON entry into one readable line', () => {
    const line = JSON.stringify({
      level: 'info',
      time: '2026-11-24T03:00:01.234Z',
      msg: 'request',
      status: 200,
      model: 'acme/chat-large',
      empty: '',
    });
    expect(prettyLine(line)).toBe('03:00:01.234 INFO  request status=200 model=acme/chat-large\n');
  });

  it('leaves a line that is not JSON as it is', () => {
    expect(prettyLine('plain')).toBe('plain');
  });
});

describe('LineBatches', () => {
  const fakeSink = () => {
    const sink = {
      destroyed: false,
      writes: [] as string[],
      flushes: 0,
      write: (text: string) => sink.writes.push(text),
      flush: () => {
        sink.flushes += 1;
      },
      flushSync: () => {
        sink.flushes += 1;
      },
      destroy: () => {
        sink.destroyed = true;
      },
    };
    return sink;
  };

  it('hands lines over joined, once a batch is full, and the rest on flush', () => {
    const sink = fakeSink();
    const batches = new LineBatches(sink, 20);
    batches.write('{"a":1}\n');
    batches.write('{"b":2}\n');
    expect(sink.writes).toEqual([]);
    batches.write('{"c":3}\n');
    expect(sink.writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n']);
    batches.write('{"d":4}\n');
    batches.flush();
    expect(sink.writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n', '{"d":4}\n']);
    expect(sink.flushes).toBe(1);
  });

  it('hands a waiting line over within flushAfterMs, and sets no timer while nothing waits', () => {
    vi.useFakeTimers();
    try {
      const sink = fakeSink();
      const batches = new LineBatches(sink, 1_000, 200);
      expect(vi.getTimerCount()).toBe(0);
      batches.write('{"a":1}\n');
      batches.write('{"b":2}\n');
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(199);
      expect(sink.writes).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(sink.writes).toEqual(['{"a":1}\n{"b":2}\n']);
      expect(sink.flushes).toBe(1);
      // Idle: no timer left to wake the process.
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(10_000);
      expect(sink.flushes).toBe(1);
      batches.write('{"c":3}\n');
      vi.advanceTimersByTime(200);
      expect(sink.writes).toEqual(['{"a":1}\n{"b":2}\n', '{"c":3}\n']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does nothing at exit once the output is destroyed', () => {
    const sink = fakeSink();
    const batches = new LineBatches(sink, 1_000);
    batches.write('{"a":1}\n');
    sink.destroyed = true;
    expect(() => batches.flushSync()).not.toThrow();
    expect(sink.writes).toEqual([]);
  });

  it('holds at most LOG_MAX_PENDING_BYTES for a standard output nobody reads, counts what it drops, and still exits', async () => {
    // 100 MB of lines to a pipe that is never read: the pending text stays bounded, and exiting gives up on
    // the full pipe after LOG_EXIT_FLUSH_MS instead of retrying it for ever.
    const script = `
      import { setImmediate as tick } from 'node:timers/promises';
      import { createLogger, droppedLogLines } from ${JSON.stringify(pathToFileURL(resolve('dist/observability/logger.js')).href)};
      const logger = createLogger({ level: 'info', format: 'json', terminal: false });
      const pad = 'x'.repeat(1000);
      global.gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 100000; i++) {
        logger.info({ i, pad }, 'request');
        if (i % 100 === 0) await tick();
      }
      global.gc();
      const growth = process.memoryUsage().heapUsed - before;
      process.stderr.write(JSON.stringify({ growth, dropped: droppedLogLines() }) + '\\n');
      process.exit(0);
    `;
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let report = '';
    child.stderr.on('data', (chunk: Buffer) => {
      report += chunk.toString();
    });
    // stdout is never read: the pipe fills after its first 64 KiB.
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    const { growth, dropped } = JSON.parse(report) as { growth: number; dropped: number };
    expect(code).toBe(0);
    expect(growth).toBeLessThan(LOG_MAX_PENDING_BYTES + 8 * 1024 * 1024);
    expect(dropped).toBeGreaterThan(50_000);
    child.stdout.destroy();
  });

  it('loses no line when the process exits: every line reaches standard output', () => {
    // The built logger in a process of its own, which logs and exits at once (no flush called).
    const script = `
      import { createLogger } from ${JSON.stringify(pathToFileURL(resolve('dist/observability/logger.js')).href)};
      const logger = createLogger({ level: 'info', format: 'json', terminal: false });
      for (let i = 0; i < 1000; i++) logger.info({ i }, 'request');
      process.exit(0);
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const seen = out
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { i: number }).i);
    expect(seen).toEqual(Array.from({ length: 1000 }, (_v, i) => i));
  });
});
