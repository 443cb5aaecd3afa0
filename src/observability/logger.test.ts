import { describe, expect, it } from 'vitest';
import { createLogger, prettyLine } from './logger.js';

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
