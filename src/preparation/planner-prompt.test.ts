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
});
