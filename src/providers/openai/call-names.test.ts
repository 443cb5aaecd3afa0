import { describe, expect, it } from 'vitest';
import { CallNames } from './call-names.js';

const choice = (toolCalls: unknown[], finish: string | null = null, index = 0) => ({
  index,
  delta: { tool_calls: toolCalls },
  finish_reason: finish,
});
const opening = (index: number, name: string, id = `call_${index}`) => ({
  index,
  id,
  type: 'function',
  function: { name, arguments: '' },
});
const args = (index: number, text: string, name?: string) => ({
  index,
  function: name === undefined ? { arguments: text } : { name, arguments: text },
});

/** Every delta the client sees, in order, from the chunks read one after another (then the stream's end). */
function run(chunks: unknown[][]): unknown[] {
  const names = new CallNames();
  const seen: unknown[] = [];
  for (const choices of chunks) {
    const { choices: out, before } = names.read(choices);
    for (const c of [...(before ?? []), ...out]) seen.push((c as { delta: unknown }).delta);
  }
  for (const c of names.pending()) seen.push((c as { delta: unknown }).delta);
  return seen;
}

describe('CallNames', () => {
  it('sends a standard call unchanged, its opening just before its first argument text', () => {
    const seen = run([
      [choice([opening(0, 'get_weather')])],
      [choice([args(0, '{"city":')])],
      [choice([args(0, '"P"}')])],
    ]);
    expect(seen).toEqual([
      {},
      { tool_calls: [opening(0, 'get_weather'), args(0, '{"city":')] },
      { tool_calls: [args(0, '"P"}')] },
    ]);
  });

  it('joins a name split over deltas into the opening (the bug: clients got "get_" or "weather")', () => {
    const seen = run([
      [choice([opening(0, 'get_')])],
      [choice([args(0, '', 'wea')])],
      [choice([args(0, '', 'ther')])],
      [choice([args(0, '{}')])],
    ]);
    expect(seen.filter((d) => Object.keys(d as object).length > 0)).toEqual([
      { tool_calls: [opening(0, 'get_weather'), args(0, '{}')] },
    ]);
  });

  it('takes a repeated or growing name once, and drops a repeat after the call went out', () => {
    const seen = run([
      [choice([opening(0, 'get')])],
      [choice([args(0, '', 'get_weather')])],
      [choice([args(0, '{"a":', 'get_weather')])],
      [choice([args(0, '1}', 'get_weather')])],
    ]);
    expect(seen.filter((d) => Object.keys(d as object).length > 0)).toEqual([
      { tool_calls: [opening(0, 'get_weather'), args(0, '{"a":')] },
      { tool_calls: [args(0, '1}')] },
    ]);
  });

  it('sends a held call when the next call opens, when its choice finishes, and at the end', () => {
    const names = new CallNames();
    expect(names.read([choice([opening(0, 'f')])]).before).toBeUndefined();
    const next = names.read([choice([opening(1, 'g')])]);
    expect(next.before).toEqual([
      { index: 0, delta: { tool_calls: [opening(0, 'f')] }, finish_reason: null },
    ]);
    const finish = names.read([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
    expect(finish.before).toEqual([
      { index: 0, delta: { tool_calls: [opening(1, 'g')] }, finish_reason: null },
    ]);
    const other = new CallNames();
    other.read([choice([opening(0, 'h')], null, 2)]);
    expect(other.pending()).toEqual([
      { index: 2, delta: { tool_calls: [opening(0, 'h')] }, finish_reason: null },
    ]);
  });

  it('joins a delta with the id alone onto the held opening', () => {
    const seen = run([
      [choice([{ index: 0, type: 'function', function: { name: 'f', arguments: '' } }])],
      [choice([{ index: 0, id: 'call_late' }])],
      [choice([args(0, '{}')])],
    ]);
    expect(seen.filter((d) => Object.keys(d as object).length > 0)).toEqual([
      { tool_calls: [opening(0, 'f', 'call_late'), args(0, '{}')] },
    ]);
  });

  it('leaves choices without calls as they are (the same array)', () => {
    const names = new CallNames();
    const choices = [{ index: 0, delta: { content: 'hi' }, finish_reason: null }];
    expect(names.read(choices).choices).toBe(choices);
  });
});
