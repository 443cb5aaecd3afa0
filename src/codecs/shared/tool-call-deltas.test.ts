import { describe, expect, it } from 'vitest';
import { ToolCallDeltas } from './tool-call-deltas.js';

describe('ToolCallDeltas', () => {
  it('assembles interleaved calls by index, whole and in order', () => {
    const deltas = new ToolCallDeltas<{ name: string; args: string }>();
    const stream = [
      { index: 0, id: 'a', function: { name: 'weather', arguments: '' } },
      { index: 1, id: 'b', function: { name: 'time', arguments: '{"tz"' } },
      { index: 0, function: { arguments: '{"city":' } },
      { index: 1, function: { arguments: ':"CET"}' } },
      { index: 0, function: { arguments: '"Paris"}' } },
    ];
    const calls: { name: string; args: string }[] = [];
    for (const toolCall of stream) {
      const { call, created, delta } = deltas.add(toolCall, () => ({ name: '', args: '' }));
      if (created) calls.push(call);
      if (delta.name) call.name = delta.name;
      call.args += delta.argumentsFragment ?? '';
    }
    expect(calls).toEqual([
      { name: 'weather', args: '{"city":"Paris"}' },
      { name: 'time', args: '{"tz":"CET"}' },
    ]);
    expect(deltas.size).toBe(2);
  });

  it('falls back to the id, then to the last call, when a provider sends no index', () => {
    const deltas = new ToolCallDeltas<{ args: string }>();
    const first = deltas.add({ id: 'x', function: { name: 'f', arguments: '{"a"' } }, () => ({ args: '' }));
    const bare = deltas.add({ function: { arguments: ':1}' } }, () => ({ args: '' }));
    const second = deltas.add({ id: 'y', function: { name: 'g' } }, () => ({ args: '' }));
    expect(bare.call).toBe(first.call);
    expect(bare.created).toBe(false);
    expect(second.created).toBe(true);
    expect(deltas.size).toBe(2);
  });

  it('reads an arguments object, as some servers stream it, as its JSON text', () => {
    const deltas = new ToolCallDeltas<object>();
    const toolCall = { index: 0, id: 'o', function: { name: 'get_weather', arguments: { city: 'Paris' } } };
    expect(deltas.add(toolCall, () => ({})).delta.argumentsFragment).toBe('{"city":"Paris"}');
  });
});
