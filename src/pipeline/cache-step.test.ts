import { describe, expect, it } from 'vitest';
import type { CapturedAnswer } from '../cache/answer-recorder.js';
import { type CacheStep, finishCache } from './cache-step.js';
import type { ExecutionReport } from './execute.js';
import type { Run } from './run.js';

/** A run whose cache writes fail as `write` says; its log lines land in `lines`. */
function runWith(write: () => Promise<void>, lines: string[]): Run {
  return {
    genId: 'gen_1',
    principal: { org: { id: 'acme' } },
    ctx: { signal: new AbortController().signal },
    deps: { responseCache: { write }, log: (line: string) => lines.push(line) },
  } as unknown as Run;
}

const execution = { costNano: 10, provider: 'p', model: 'm' } as unknown as ExecutionReport;

describe('finishCache', () => {
  it('logs a failure to capture the answer without its message, and tells waiting requests there is none', async () => {
    const lines: string[] = [];
    const told: (string | undefined)[] = [];
    const step: CacheStep = {
      key: 'k',
      ttlMs: 1000,
      recorder: {
        captured: () => {
          throw new SyntaxError('Unexpected token in "the secret answer"');
        },
      } as unknown as CacheStep['recorder'],
      finishFlight: (answer) => told.push(answer),
    };
    await finishCache(
      runWith(() => Promise.resolve(), lines),
      step,
      execution,
      true,
    );
    expect(told).toEqual([undefined]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^response cache: keeping the answer of gen_1 failed: SyntaxError, message withheld/,
    );
    expect(lines[0]).not.toContain('secret');
  });

  it('logs a failed write without its message; identical requests already had the answer', async () => {
    const lines: string[] = [];
    const told: (string | undefined)[] = [];
    const captured: CapturedAnswer = {
      form: 'chat',
      usage: { inputTokens: 1, outputTokens: 1 },
      warnings: [],
      streamable: true,
      bodyJson: '{"choices":[]}',
    } as unknown as CapturedAnswer;
    const step: CacheStep = {
      key: 'k',
      ttlMs: 1000,
      recorder: { captured: () => captured } as unknown as CacheStep['recorder'],
      finishFlight: (answer) => told.push(answer),
    };
    const write = () => Promise.reject(new Error('store refused "the secret answer"'));
    await finishCache(runWith(write, lines), step, execution, true);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('"body":{"choices":[]}');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^response cache: keeping the answer of gen_1 failed: Error, message withheld/);
    expect(lines[0]).not.toContain('secret');
  });
});
