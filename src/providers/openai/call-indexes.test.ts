import { describe, expect, it } from 'vitest';
import { CallIndexes } from './call-indexes.js';

const choice = (toolCalls: unknown[], index = 0) => ({ index, delta: { tool_calls: toolCalls } });
const indexesOf = (choices: unknown[]) =>
  choices.map((c) =>
    (c as { delta: { tool_calls: { index: number }[] } }).delta.tool_calls.map((t) => t.index),
  );

describe('CallIndexes', () => {
  it('leaves a standard stream as it is (the same arrays)', () => {
    const indexes = new CallIndexes();
    const chunks = [
      [choice([{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }])],
      [choice([{ index: 0, function: { arguments: '{}' } }])],
      [choice([{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }])],
      [choice([{ index: 1, id: 'b', function: { arguments: '' } }])],
    ];
    for (const choices of chunks) expect(indexes.read(choices)).toBe(choices);
  });

  it('gives a call of its own to a delta with a new id at an index already taken, per choice', () => {
    const indexes = new CallIndexes();
    const read = (choices: unknown[]) => indexesOf(indexes.read(choices));
    expect(read([choice([{ index: 0, id: 'a' }]), choice([{ index: 0, id: 'x' }], 1)])).toEqual([[0], [0]]);
    expect(read([choice([{ index: 0 }])])).toEqual([[0]]);
    expect(
      read([
        choice([
          { index: 0, id: 'b' },
          { index: 0, id: 'b' },
        ]),
      ]),
    ).toEqual([[1, 1]]);
    expect(read([choice([{ index: 0, id: '' }]), choice([{ index: 0, id: 'y' }], 1)])).toEqual([[1], [1]]);
    expect(read([choice([{ index: 1, id: 'c' }])])).toEqual([[2]]);
    expect(read([choice([{ index: 0 }, { index: 1 }])])).toEqual([[1, 2]]);
  });

  it('types a function call that opens without a type, on its opening delta only', () => {
    const indexes = new CallIndexes();
    const opening = [choice([{ index: 0, id: 'a', function: { name: 'f', arguments: '' } }])];
    expect(indexes.read(opening)).toEqual([
      choice([{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }]),
    ]);
    const more = [choice([{ index: 0, function: { arguments: '{}' } }])];
    expect(indexes.read(more)).toBe(more);
    const custom = [choice([{ index: 1, id: 'c', type: 'custom', custom: { name: 'g', input: '' } }])];
    expect(indexes.read(custom)).toBe(custom);
  });

  it('types a call whose opening delta has its id alone, its name coming later', () => {
    const indexes = new CallIndexes();
    expect(indexes.read([choice([{ index: 0, id: 'a' }])])).toEqual([
      choice([{ index: 0, id: 'a', type: 'function' }]),
    ]);
    const named = [choice([{ index: 0, function: { name: 'f', arguments: '{}' } }])];
    expect(indexes.read(named)).toBe(named);
  });

  it('numbers calls sent without an index: by id, else the last call', () => {
    const indexes = new CallIndexes();
    const read = (choices: unknown[]) => indexesOf(indexes.read(choices));
    expect(read([choice([{ id: 'a', type: 'function', function: { name: 'f' } }])])).toEqual([[0]]);
    expect(read([choice([{ function: { arguments: '{' } }])])).toEqual([[0]]);
    expect(read([choice([{ id: 'b', type: 'function' }, { function: { arguments: '}' } }])])).toEqual([
      [1, 1],
    ]);
    expect(read([choice([{ id: 'a', function: { arguments: '}' } }])])).toEqual([[0]]);
    expect(read([choice([{ function: { arguments: '' } }], 1)])).toEqual([[0]]);
  });

  it('leaves choices without calls alone', () => {
    const indexes = new CallIndexes();
    const choices = [
      { index: 0, delta: { content: 'hi' } },
      { index: 1, delta: { tool_calls: 'x' } },
    ];
    expect(indexes.read(choices)).toBe(choices);
  });
});
