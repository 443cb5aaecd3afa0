import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../json/json.js';
import { toMessagesRequest } from './anthropic-request.js';
import { claudeRules, isClaudeModelName, LEGACY_CLAUDE } from './claude-rules.js';

const translate = (chat: JsonObject) => toMessagesRequest(chat, { maxOutputTokens: 128_000, stream: false });
const user = (content: string) => ({ role: 'user', content });
const on = (model: string, extra: JsonObject = {}) => translate({ model, messages: [user('Hi')], ...extra });

const WEATHER = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
const TIME = { type: 'function', function: { name: 'get_time' } };

describe('claudeRules: by the model name', () => {
  it('reads the version from every id form, dates and platform prefixes included', () => {
    expect(claudeRules('claude-haiku-4-5-20251001')).toBe(LEGACY_CLAUDE);
    expect(claudeRules('claude-opus-4-20250514')).toBe(LEGACY_CLAUDE);
    expect(claudeRules('claude-3-7-sonnet-latest')).toBe(LEGACY_CLAUDE);
    expect(claudeRules('my-own-model')).toBe(LEGACY_CLAUDE);
    expect(claudeRules(undefined)).toBe(LEGACY_CLAUDE);
    const opus46 = claudeRules('anthropic.claude-opus-4-6-v1');
    expect(opus46).toMatchObject({ reasoning: 'effort', xhigh: false, sampling: true, prefill: false });
    expect(claudeRules('claude-opus-4-7')).toMatchObject({
      xhigh: true,
      sampling: false,
      thinksByDefault: false,
    });
    expect(claudeRules('claude-mythos-preview')).toMatchObject({ reasoning: 'effort', sampling: false });
    expect(claudeRules('anthropic/claude-sonnet-5.5')).toEqual(claudeRules('claude-sonnet-5-5'));
    expect(claudeRules('claude-opus-4-7@20260416')).toEqual(claudeRules('claude-opus-4-7'));
    expect(claudeRules('anthropic/claude-opus-4.1')).toBe(LEGACY_CLAUDE);
  });

  it('knows how each Claude 5 model turns thinking off and whether it takes a forced tool choice', () => {
    const rows = ['sonnet-5', 'opus-5', 'haiku-5-5', 'sonnet-5-5', 'opus-5-5', 'fable-5-1', 'fable-5'].map(
      (name) => [name, claudeRules(`claude-${name}`).off, claudeRules(`claude-${name}`).forcedTools],
    );
    expect(rows).toEqual([
      ['sonnet-5', 'disabled', true],
      ['opus-5', 'disabled', true],
      ['haiku-5-5', 'disabled', true],
      ['sonnet-5-5', 'between_tools', false],
      ['opus-5-5', undefined, false],
      ['fable-5-1', undefined, false],
      ['fable-5', undefined, true],
    ]);
    for (const name of ['sonnet-5', 'opus-5-5', 'haiku-5-5']) {
      expect(claudeRules(`claude-${name}`)).toMatchObject({
        reasoning: 'effort',
        thinksByDefault: true,
        sampling: false,
        prefill: false,
      });
    }
  });
});

describe('rulesOf: the rules of a named Claude model for an upstream name that says nothing', () => {
  it('applies the named model’s rules and keeps the upstream name in the request', () => {
    const chat = { model: 'corp-opus-latest', messages: [user('Hi')], temperature: 0.3 };
    // Without it, the name reads as no Claude model's: the rules before 4.6, which take a temperature.
    expect(translate(chat).body.temperature).toBe(0.3);
    const ruled = toMessagesRequest(
      { ...chat, reasoning_effort: 'high' },
      { maxOutputTokens: 128_000, stream: false, rulesOf: 'claude-opus-4-7' },
    );
    expect(ruled.body.model).toBe('corp-opus-latest');
    expect(ruled.body).not.toHaveProperty('temperature');
    expect(ruled.body.thinking).toEqual({ type: 'adaptive' });
    expect(ruled.body.output_config).toEqual({ effort: 'high' });
  });

  it('accepts only Claude ids as names of rules (the config check)', () => {
    for (const name of [
      'claude-opus-4-7',
      'claude-sonnet-5-5',
      'claude-haiku-4-5-20251001',
      'claude-mythos-preview',
    ])
      expect(isClaudeModelName(name)).toBe(true);
    for (const name of ['gpt-4o', 'opus', 'claude', 'claude-3-7-sonnet-latest'])
      expect(isClaudeModelName(name)).toBe(false);
  });
});

describe('toMessagesRequest on models since Claude 4.6', () => {
  it('asks for reasoning as an effort, never a thinking budget', () => {
    const sonnet = on('claude-sonnet-5-5', { reasoning_effort: 'medium' });
    expect(sonnet.body).not.toHaveProperty('thinking');
    expect(sonnet.body.output_config).toEqual({ effort: 'medium' });
    expect(sonnet.warnings).toEqual([]);
    const opus47 = on('claude-opus-4-7', { reasoning_effort: 'xhigh' });
    expect(opus47.body.thinking).toEqual({ type: 'adaptive' });
    expect(opus47.body.output_config).toEqual({ effort: 'xhigh' });
    const opus46 = on('claude-opus-4-6', { reasoning_effort: 'xhigh' });
    expect(opus46.body.output_config).toEqual({ effort: 'high' });
    expect(opus46.warnings).toEqual([expect.stringContaining('effort "high" was sent')]);
    expect(on('claude-haiku-5-5', { reasoning_effort: 'minimal' }).body.output_config).toEqual({
      effort: 'low',
    });
  });

  it('merges the effort with a structured output format and a native output_config', () => {
    const { body } = on('claude-opus-5', {
      reasoning_effort: 'high',
      output_config: { task_budget: 10 },
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
    });
    expect(body.output_config).toEqual({
      task_budget: 10,
      format: { type: 'json_schema', schema: { type: 'object' } },
      effort: 'high',
    });
  });

  it('turns reasoning off the way each model can, or asks for the lowest effort where it cannot', () => {
    expect(on('claude-sonnet-5', { reasoning_effort: 'none' }).body.thinking).toEqual({ type: 'disabled' });
    expect(on('claude-sonnet-5-5', { reasoning_effort: 'none' }).body.thinking).toEqual({
      type: 'between_tools',
    });
    expect(on('claude-opus-4-7', { reasoning_effort: 'none' }).body).not.toHaveProperty('thinking');
    const opus = on('claude-opus-5-5', { reasoning_effort: 'none' });
    expect(opus.body).not.toHaveProperty('thinking');
    expect(opus.body.output_config).toEqual({ effort: 'low' });
    expect(opus.warnings).toEqual([
      'reasoning cannot be turned off on claude-opus-5-5; effort "low" was sent',
    ]);
  });

  it('leaves out temperature, top_p and top_k, each with a warning', () => {
    const { body, warnings } = on('claude-sonnet-5', { temperature: 0, top_p: 0.9, top_k: 5 });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('top_k');
    expect(warnings).toEqual([
      'temperature is not supported by claude-sonnet-5; not sent',
      'top_p is not supported by claude-sonnet-5; not sent',
      'top_k is not supported by claude-sonnet-5; not sent',
    ]);
    expect(on('claude-opus-4-6', { temperature: 0.3 }).body.temperature).toBe(0.3);
  });

  it('refuses a final assistant message (prefill) with a 400 before any upstream call', () => {
    const messages = [user('Hi'), { role: 'assistant', content: 'Sure, ' }];
    expect(translate({ model: 'claude-haiku-4-5', messages }).body.messages).toHaveLength(2);
    let error: unknown;
    try {
      translate({ model: 'claude-sonnet-4-6', messages });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, param: 'messages' });
    expect((error as Error).message).toContain(
      'claude-sonnet-4-6 does not continue a final assistant message',
    );
  });

  it('sends a forced tool choice as auto where the model refuses it, offering only a named tool', () => {
    const named = on('claude-opus-5-5', {
      tools: [WEATHER, TIME],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    expect(named.body.tool_choice).toEqual({ type: 'auto' });
    expect((named.body.tools as JsonObject[]).map((tool) => tool.name)).toEqual(['get_time']);
    expect(named.warnings).toEqual([expect.stringContaining('with only the named tool')]);
    const required = on('claude-sonnet-5-5', { tools: [WEATHER, TIME], tool_choice: 'required' });
    expect(required.body.tool_choice).toEqual({ type: 'auto' });
    expect(required.body.tools).toHaveLength(2);
    const opus5 = on('claude-opus-5', { tools: [WEATHER], tool_choice: 'required' });
    expect(opus5.body.tool_choice).toEqual({ type: 'any' });
    expect(opus5.warnings).toEqual([]);
  });
});
