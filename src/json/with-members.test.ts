import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { withMembers } from './with-members.js';

describe('withMembers', () => {
  it('is the spread: base members, then extra, extra winning, in that key order', () => {
    const base = { model: 'a', stream: true, n: 1 };
    const merged = withMembers(base, { stream: false, extra: 2 });
    expect(merged).toEqual({ ...base, stream: false, extra: 2 });
    expect(Object.keys(merged)).toEqual(['model', 'stream', 'n', 'extra']);
    expect(JSON.stringify(merged)).toBe(JSON.stringify({ ...base, ...{ stream: false, extra: 2 } }));
    expect(merged).not.toBe(base);
    expect(base).toEqual({ model: 'a', stream: true, n: 1 });
  });

  it('keeps a client-sent `__proto__` member as a member, never as the prototype', () => {
    const body = JSON.parse('{"model":"m","__proto__":{"tools":["injected"]}}') as Record<string, unknown>;
    const merged = withMembers(body, { stream: false }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.tools).toBeUndefined();
    expect(JSON.stringify(merged)).toBe('{"model":"m","__proto__":{"tools":["injected"]},"stream":false}');
    const fromExtra = withMembers({ a: 1 }, JSON.parse('{"__proto__":{"polluted":true}}') as object);
    expect((fromExtra as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(fromExtra, '__proto__')).toBe(true);
  });

  it('gives the objects it makes from objects of one shape one hidden class (V8 checks it)', () => {
    // A literal with members after a spread fails this on Node 20: every object gets a map of its own.
    const script = `
      const withMembers = ${withMembers.toString()};
      const make = (i) => withMembers(JSON.parse('{"model":"m","n":' + i + '}'), { stream: false, i });
      for (let i = 0; i < 20000; i++) make(i);
      process.stdout.write(String(%HaveSameMap(make(1), make(2))));`;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', script], {
      encoding: 'utf8',
    });
    expect(out).toBe('true');
  });
});
