import { describe, expect, it } from 'vitest';
import { PLAN_HEADING, PLANNER_INSTRUCTION, plannerRequest, withPlan } from './planner-prompt.js';

describe('planner prompt', () => {
  it('puts the strict instruction first and keeps the conversation', () => {
    const conversation = [
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Design a cache.' },
    ];
    const request = plannerRequest(conversation);
    expect(request.messages).toEqual([{ role: 'system', content: PLANNER_INSTRUCTION }, ...conversation]);
    expect(PLANNER_INSTRUCTION).toMatch(/Do NOT write the answer/);
  });

  it('adds the plan after the existing system messages of a chat request, without mutating it', () => {
    const request = {
      model: 'x',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'Design a cache.' },
      ],
    };
    const copy = structuredClone(request);
    const planned = withPlan(request, 'chat', ' 1. Step one \n');
    expect(request).toEqual(copy);
    expect(planned.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'system', content: `${PLAN_HEADING}\n\n1. Step one` },
      { role: 'user', content: 'Design a cache.' },
    ]);
  });

  it('appends the plan to Responses instructions, or creates them', () => {
    expect(withPlan({ input: 'x', instructions: 'Be terse.' }, 'responses', 'P').instructions).toBe(
      `Be terse.\n\n${PLAN_HEADING}\n\nP`,
    );
    expect(withPlan({ input: 'x' }, 'responses', 'P').instructions).toBe(`${PLAN_HEADING}\n\nP`);
  });

  // bug: the planner got the executor's tool calls and results but no tools, which providers refuse
  // (Anthropic: "Requests which include tool_use or tool_result blocks must define tools"), so a
  // conversation with a tool loop was never planned
  it('writes tool calls and results out as text for the planner, which gets no tools', () => {
    const conversation = [
      { role: 'user', content: 'What is the weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"t":18}' },
      { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'sunny' }] },
      { role: 'assistant', content: 'Let me check.', function_call: { name: 'f', arguments: '{}' } },
      { role: 'function', name: 'f', content: 'done' },
    ];
    const messages = plannerRequest(conversation).messages as Record<string, unknown>[];
    for (const message of messages) {
      expect(['system', 'user', 'assistant']).toContain(message.role);
      expect(message).not.toHaveProperty('tool_calls');
      expect(message).not.toHaveProperty('function_call');
    }
    const text = JSON.stringify(messages);
    expect(text).toContain('get_weather({\\"city\\":\\"Paris\\"})');
    expect(text).toContain('{\\"t\\":18}');
    expect(text).toContain('sunny');
    expect(text).toContain('Let me check.');
    expect(text).toContain('done');
    expect(messages[1]).toEqual(conversation[0]);
  });
});
