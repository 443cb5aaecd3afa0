import { describe, expect, it } from 'vitest';
import { choicesWithArguments, StreamedArguments } from './blank-arguments.js';

const call = (index: number, fields: Record<string, unknown>) => ({ index, ...fields });
const deltaChoice = (calls: unknown[], finish: string | null = null, index = 0) => ({
  index,
  delta: { tool_calls: calls },
  finish_reason: finish,
});
const finishChoice = (index = 0) => ({ index, delta: {}, finish_reason: 'tool_calls' });

describe('choicesWithArguments (a chat completion)', () => {
  const message = (calls: unknown[]) => [
    {
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: calls },
      finish_reason: 'tool_calls',
    },
  ];
  const fn = (id: string, args: unknown) => ({
    id,
    type: 'function',
    function: { name: 'f', arguments: args },
  });

  it('gives {} to calls whose arguments are empty, blank, absent or not text, and leaves the rest', () => {
    const absent = { id: 'c3', type: 'function', function: { name: 'f' } };
    const custom = { id: 'c5', type: 'custom', custom: { name: 'g', input: '' } };
    const choices = message([
      fn('c0', ''),
      fn('c1', ' \n'),
      fn('c2', '{"a":1}'),
      absent,
      fn('c4', null),
      custom,
    ]);
    type Call = { function?: { arguments?: unknown }; custom?: { input: string } };
    const result = choicesWithArguments(choices) as { message: { tool_calls: Call[] } }[];
    const sent = result[0]?.message.tool_calls.map((c) =>
      c.function ? c.function.arguments : c.custom?.input,
    );
    expect(sent).toEqual(['{}', '{}', '{"a":1}', '{}', '{}', '']);
    // The upstream's objects are not changed (they may be cached or logged as they came).
    expect(choices[0]?.message.tool_calls[0]).toEqual(fn('c0', ''));
  });

  it('keeps an arguments object as its JSON text, never as {}', () => {
    const choices = message([fn('c0', { city: 'Paris' })]);
    const result = choicesWithArguments(choices) as { message: { tool_calls: { function: unknown }[] } }[];
    expect(result[0]?.message.tool_calls[0]?.function).toEqual({ name: 'f', arguments: '{"city":"Paris"}' });
  });

  it('types a function call without a type, and gives it {} too when it has no argument text', () => {
    const untyped = { id: 'c0', function: { name: 'f', arguments: '{"a":1}' } };
    const blank = { id: 'c1', function: { name: 'f', arguments: '' } };
    const result = choicesWithArguments(message([untyped, blank])) as {
      message: { tool_calls: unknown[] };
    }[];
    expect(result[0]?.message.tool_calls).toEqual([
      { ...untyped, type: 'function' },
      { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
    ]);
  });

  it('gives a function call without an id one of its own, and leaves custom calls alone', () => {
    const custom = { type: 'custom', custom: { name: 'g', input: 'x' } };
    const choices = message([{ type: 'function', function: { name: 'f', arguments: '{}' } }, custom]);
    const result = choicesWithArguments(choices) as { message: { tool_calls: { id?: string }[] } }[];
    expect(result[0]?.message.tool_calls[0]?.id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(result[0]?.message.tool_calls[1]).toBe(custom);
  });

  it('answers the same array when every call has argument text', () => {
    const choices = message([fn('c0', '{}')]);
    expect(choicesWithArguments(choices)).toBe(choices);
    const text = [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }];
    expect(choicesWithArguments(text)).toBe(text);
  });
});

describe('StreamedArguments (a chat stream)', () => {
  it('sends {} just before the finish of a choice whose call got no argument text', () => {
    const calls = new StreamedArguments();
    const opened = [
      deltaChoice([call(0, { id: 'c0', type: 'function', function: { name: 'f', arguments: '' } })]),
    ];
    expect(calls.read(opened)).toEqual({ choices: opened, before: undefined });
    const blank = [deltaChoice([call(0, { function: { arguments: '' } })])];
    expect(calls.read(blank).before).toBeUndefined();
    const finish = [finishChoice()];
    const reading = calls.read(finish);
    expect(reading.choices).toBe(finish);
    expect(reading.before).toEqual([
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, finish_reason: null },
    ]);
    expect(calls.pending()).toEqual([]);
  });

  it('gives {} inside the finishing chunk when that chunk opens the call', () => {
    const calls = new StreamedArguments();
    const opened = call(0, { id: 'c0', type: 'function', function: { name: 'f', arguments: '  ' } });
    const choices = [deltaChoice([opened], 'tool_calls')];
    const reading = calls.read(choices);
    expect(reading.before).toBeUndefined();
    expect(reading.choices).toEqual([
      deltaChoice([{ ...opened, function: { name: 'f', arguments: '  {}' } }], 'tool_calls'),
    ]);
    expect(choices[0]?.delta.tool_calls[0]).toBe(opened);
  });

  it('leaves calls with argument text, and calls of other choices, alone', () => {
    const calls = new StreamedArguments();
    calls.read([
      deltaChoice([
        call(0, { id: 'a', type: 'function', function: { name: 'f', arguments: '' } }),
        call(1, { id: 'b', type: 'function', function: { name: 'g', arguments: '' } }),
      ]),
      deltaChoice([call(0, { id: 'c', type: 'function', function: { name: 'h', arguments: '' } })], null, 1),
    ]);
    // Call 0 gets text, then a blank fragment: it has text.
    calls.read([deltaChoice([call(0, { function: { arguments: '{"x":' } })])]);
    calls.read([deltaChoice([call(0, { function: { arguments: '1}' } })])]);
    calls.read([deltaChoice([call(0, { function: { arguments: ' ' } })])]);
    const reading = calls.read([finishChoice(0)]);
    expect(reading.before).toEqual([
      { index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{}' } }] }, finish_reason: null },
    ]);
    // Choice 1 never finished: the end of the stream gives its call {}.
    expect(calls.pending()).toEqual([
      { index: 1, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, finish_reason: null },
    ]);
    expect(calls.pending()).toEqual([]);
  });

  it('adds nothing to a streamed call whose arguments came as an object', () => {
    const calls = new StreamedArguments();
    calls.read([
      deltaChoice([call(0, { id: 'c', type: 'function', function: { name: 'f', arguments: { a: 1 } } })]),
    ]);
    expect(calls.read([finishChoice()]).before).toBeUndefined();
  });

  it('gives a streamed arguments object as its JSON text, leaving the upstream object as it came', () => {
    const calls = new StreamedArguments();
    const entry = call(0, { id: 'c', type: 'function', function: { name: 'f', arguments: { a: 'é' } } });
    const choices = [deltaChoice([entry], 'tool_calls')];
    const reading = calls.read(choices);
    expect(reading).toEqual({
      choices: [deltaChoice([{ ...entry, function: { name: 'f', arguments: '{"a":"é"}' } }], 'tool_calls')],
      before: undefined,
    });
    expect(choices[0]?.delta.tool_calls[0]).toBe(entry);
  });

  it('follows only calls with an index and a function', () => {
    const calls = new StreamedArguments();
    calls.read([deltaChoice([{ id: 'x', type: 'function', function: { name: 'f', arguments: '' } }])]);
    calls.read([deltaChoice([call(0, { id: 'y', type: 'custom', custom: { name: 'g', input: '' } })])]);
    expect(calls.read([finishChoice()]).before).toBeUndefined();
  });

  it('gives a call {} once even when the finishing chunk names it twice', () => {
    const calls = new StreamedArguments();
    const entry = call(0, { id: 'c0', type: 'function', function: { name: 'f', arguments: '' } });
    const reading = calls.read([
      deltaChoice([entry, call(0, { function: { arguments: '' } })], 'tool_calls'),
    ]);
    const sent = (reading.choices[0] as ReturnType<typeof deltaChoice>).delta.tool_calls as {
      function: { arguments: string };
    }[];
    expect(sent.map((c) => c.function.arguments).join('')).toBe('{}');
  });
});
