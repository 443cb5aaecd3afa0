import { describe, expect, it } from 'vitest';
import { arrayMember, recordMember } from '../json/json.js';
import { ChatAssembler, completionChunks, isCompleteCompletion, isStreamable } from './chat-answer.js';

const header = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null, index = 0) => ({
  ...header,
  choices: [{ index, delta, finish_reason: finish }],
});

describe('ChatAssembler', () => {
  it('takes an upstream array of 200,000 thinking blocks without overflowing the call stack', () => {
    const assembler = new ChatAssembler(64 * 1024 * 1024);
    const blocks = Array.from({ length: 200_000 }, () => ({ type: 'thinking', thinking: '' }));
    assembler.add(chunk({ role: 'assistant', content: '' }));
    expect(() => assembler.add(chunk({ thinking_blocks: blocks }))).not.toThrow();
  });

  it('adds up text, reasoning and interleaved tool calls of a stream into one completion', () => {
    const assembler = new ChatAssembler();
    for (const part of [
      chunk({ role: 'assistant', content: '', refusal: null }),
      chunk({ reasoning_content: 'think ' }),
      chunk({ reasoning_content: 'more' }),
      chunk({ content: 'Hello ' }),
      chunk({ content: 'world' }),
      chunk({
        tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }],
      }),
      chunk({
        tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '}' } }] }),
      chunk({}, 'tool_calls'),
    ])
      assembler.add(part);
    const completion = assembler.completion();
    expect(completion).toMatchObject({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Hello world',
            reasoning_content: 'think more',
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
              { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
            ],
          },
        },
      ],
    });
    // And back: the chunks of the completion add up to the same completion.
    const again = new ChatAssembler();
    for (const part of completionChunks(completion ?? {})) again.add(part);
    expect(again.completion()).toEqual(completion);
  });

  // Bug: a hit lost the stop sequence that ended the answer (the Messages ingress then said end_turn, null).
  it.each([
    ['matched_stop', 'END'],
    ['stop_reason', 'END'],
    ['stop_reason', 128_009],
  ])("keeps the finish chunk choice's %s (%j) and streams it back on the finish chunk", (name, value) => {
    const assembler = new ChatAssembler();
    assembler.add(chunk({ role: 'assistant', content: 'Done' }));
    assembler.add({ ...header, choices: [{ index: 0, delta: {}, finish_reason: 'stop', [name]: value }] });
    const completion = assembler.completion() ?? {};
    expect(completion.choices).toStrictEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Done', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
        [name]: value,
      },
    ]);
    expect(completionChunks(completion).at(-1)?.choices).toStrictEqual([
      { index: 0, delta: {}, logprobs: null, finish_reason: 'stop', [name]: value },
    ]);
  });

  it("ignores vLLM's stop_reason null on every chunk", () => {
    const assembler = new ChatAssembler();
    assembler.add({ ...header, choices: [{ index: 0, delta: { content: 'x' }, stop_reason: null }] });
    assembler.add({
      ...header,
      choices: [{ index: 0, delta: {}, finish_reason: 'stop', stop_reason: null }],
    });
    expect(assembler.completion()?.choices).toStrictEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'x', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ]);
  });

  // Bug: a hit lost a tool call's extra_content (Gemini's thought signature, which Gemini wants back).
  it("keeps a tool call's extra_content and streams it back with the call", () => {
    const extra = { google: { thought_signature: 'SIG' } };
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } };
    const assembler = new ChatAssembler();
    assembler.add(chunk({ role: 'assistant', content: '' }));
    assembler.add(chunk({ tool_calls: [{ index: 0, ...call, extra_content: extra }] }));
    assembler.add(chunk({}, 'tool_calls'));
    const completion = assembler.completion() ?? {};
    const message = { role: 'assistant', content: null, refusal: null };
    expect(completion.choices).toStrictEqual([
      {
        index: 0,
        message: { ...message, tool_calls: [{ ...call, extra_content: extra }] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
    const streamed = completionChunks(completion).flatMap((part) =>
      (arrayMember(part, 'choices') ?? []).flatMap(
        (choice) => arrayMember(recordMember(choice, 'delta'), 'tool_calls') ?? [],
      ),
    );
    expect(streamed).toStrictEqual([{ index: 0, ...call, extra_content: extra }]);
  });

  it('takes content deltas read without parsing as add() takes their chunks, size bound included', () => {
    const parsed = new ChatAssembler(1_000);
    const unparsed = new ChatAssembler(1_000);
    for (const assembler of [parsed, unparsed]) assembler.add(chunk({ role: 'assistant', content: '' }));
    expect(unparsed.started).toBe(true);
    for (const text of ['Hel', 'lo "quoted"\n', ' world']) {
      parsed.add(chunk({ content: text }));
      unparsed.addContent(text);
    }
    for (const assembler of [parsed, unparsed]) assembler.add(chunk({}, 'stop'));
    expect(unparsed.completion()).toEqual(parsed.completion());
    const small = new ChatAssembler(40);
    small.add(chunk({ role: 'assistant', content: '' }));
    small.addContent('z'.repeat(50));
    small.add(chunk({}, 'stop'));
    expect(small.completion()).toBeUndefined();
  });

  it('stops assembling past its size bound', () => {
    const assembler = new ChatAssembler(100);
    assembler.add(chunk({ role: 'assistant', content: 'x'.repeat(60) }));
    assembler.add(chunk({ content: 'y'.repeat(60) }, 'stop'));
    expect(assembler.completion()).toBeUndefined();
    const roomy = new ChatAssembler(1_000);
    roomy.add(chunk({ role: 'assistant', content: 'x'.repeat(60) }));
    roomy.add(chunk({ content: 'y'.repeat(60) }, 'stop'));
    expect(roomy.completion()).toBeDefined();
  });

  it.each([
    ['no finish reason', [chunk({ content: 'cut' })]],
    ['cut at max_tokens', [chunk({ content: 'cut' }, 'length')]],
    ['a member it cannot keep', [chunk({ content: 'x', audio: { id: 'a' } }, 'stop')]],
    [
      'logprobs',
      [
        {
          ...header,
          choices: [{ index: 0, delta: { content: 'x' }, logprobs: { content: [] }, finish_reason: 'stop' }],
        },
      ],
    ],
    ['one of two choices unfinished', [chunk({ content: 'a' }, 'stop', 0), chunk({ content: 'b' }, null, 1)]],
    ['nothing', []],
  ])('keeps nothing of a stream with %s', (_name, parts) => {
    const assembler = new ChatAssembler();
    for (const part of parts) assembler.add(part);
    expect(assembler.completion()).toBeUndefined();
  });
});

describe('plain completions', () => {
  const completion = (message: Record<string, unknown>, finish = 'stop') => ({
    id: 'c',
    choices: [
      { index: 0, message: { role: 'assistant', ...message }, finish_reason: finish, logprobs: null },
    ],
  });

  it('are complete only when every choice finished on its own', () => {
    expect(isCompleteCompletion(completion({ content: 'x' }))).toBe(true);
    expect(isCompleteCompletion(completion({ content: 'x' }, 'length'))).toBe(false);
    expect(isCompleteCompletion({ choices: [] })).toBe(false);
  });

  it('are streamable unless a message carries what a stream cannot', () => {
    expect(isStreamable(completion({ content: 'x', refusal: null, annotations: [] }))).toBe(true);
    expect(isStreamable(completion({ content: 'x', audio: { data: 'AAA' } }))).toBe(false);
  });
});
