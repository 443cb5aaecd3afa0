import { expect } from 'vitest';
import type { IngressDriver } from './ingresses.js';
import type { ProviderUnderTest } from './providers.js';
import {
  type IngressId,
  JSON_REPLY,
  type Outcome,
  type Scenario,
  STOP,
  TOOL_ARGUMENTS,
  TOOL_NAME,
  TOOL_RESULT,
} from './scenario.js';

/** One row of the matrix: a request shape, and what the client must get back. */
export interface Feature {
  id: string;
  /** The row's name, with each ingress's own parameter where it has one. */
  label: string | Record<IngressId, string>;
  scenario: Scenario;
  /** Checks on what the client got (warnings are checked apart). */
  expectClient(outcome: Outcome, cell: CellRun): void;
  /** Set up the fakes before the request. */
  prepare?(provider: ProviderUnderTest): void;
  /** Two-step features: the outcome to check, and the tool call id it answered. */
  run?(driver: IngressDriver, provider: ProviderUnderTest): Promise<{ outcome: Outcome; callId: string }>;
}

export interface CellRun {
  ingress: IngressId;
  provider: ProviderUnderTest;
  driver: IngressDriver;
}

/** The reasoning text the ingress carries: Responses returns reasoning only as summaries, not asked for here. */
const expectReasoning = (outcome: Outcome, { ingress, provider }: CellRun) =>
  expect(outcome.reasoning).toBe(ingress === 'responses' ? '' : provider.reasoningText);

const answersText = (outcome: Outcome, { provider }: CellRun, finish: Outcome['finish'] = 'stop') => {
  expect(outcome.text).toBe(provider.reply());
  expect(outcome.toolCalls).toEqual([]);
  expect(outcome.finish).toBe(finish);
};

const callsTheTool = (outcome: Outcome) => {
  expect(outcome.toolCalls).toHaveLength(1);
  const [call] = outcome.toolCalls;
  expect(call?.id).not.toBe('');
  expect(call?.name).toBe(TOOL_NAME);
  expect(JSON.parse(call?.arguments ?? '')).toEqual(TOOL_ARGUMENTS);
  expect(outcome.finish).toBe('tool');
};

/** A tool round trip: the call, then the result sent back; the second answer is the outcome. */
async function roundTrip(driver: IngressDriver, provider: ProviderUnderTest, scenario: Scenario) {
  const first = await driver.run(provider.model, scenario);
  callsTheTool(first);
  const callId = first.toolCalls[0]?.id ?? '';
  return { outcome: await first.sendToolResult(TOOL_RESULT), callId };
}

const reportsUsage = (outcome: Outcome, cell: CellRun) => {
  answersText(outcome, cell);
  expect(outcome.usage).toMatchObject(cell.driver.usageOf(cell.provider.usage));
};

export const FEATURES: Feature[] = [
  { id: 'text', label: 'Text', scenario: {}, expectClient: answersText },
  { id: 'text-stream', label: 'Text, streamed', scenario: { stream: true }, expectClient: answersText },
  {
    id: 'system',
    label: {
      chat: 'System message',
      responses: '`instructions`',
      messages: '`system`',
      gemini: '`systemInstruction`',
    },
    scenario: { system: true },
    expectClient: answersText,
  },
  { id: 'image', label: 'Image input (PNG data URI)', scenario: { image: true }, expectClient: answersText },
  {
    id: 'tools',
    label: 'Tool definitions + tool call',
    scenario: { tools: true },
    expectClient: callsTheTool,
  },
  {
    id: 'tools-stream',
    label: 'Tool call, streamed (arguments whole, in order)',
    scenario: { tools: true, stream: true },
    expectClient: callsTheTool,
  },
  {
    id: 'tool-result',
    label: 'Tool result round trip',
    scenario: { tools: true },
    run: (driver, provider) => roundTrip(driver, provider, { tools: true }),
    expectClient: (outcome, { provider }) => {
      expect(outcome.text).toBe(provider.afterToolResult);
      expect(outcome.finish).toBe('stop');
    },
  },
  {
    id: 'tool-choice',
    label: {
      chat: '`tool_choice` function',
      responses: '`tool_choice` function',
      messages: '`tool_choice` tool',
      gemini: '`functionCallingConfig` ANY, one name',
    },
    scenario: { tools: true, forceTool: true },
    expectClient: callsTheTool,
  },
  {
    id: 'structured',
    label: {
      chat: 'Structured output (`response_format` json_schema)',
      responses: 'Structured output (`text.format` json_schema)',
      messages: 'Structured output (`output_config.format`)',
      gemini: 'Structured output (`responseJsonSchema`)',
    },
    scenario: { jsonSchema: true },
    prepare: (provider) => provider.setReply(JSON.stringify(JSON_REPLY)),
    expectClient: (outcome) => expect(JSON.parse(outcome.text)).toEqual(JSON_REPLY),
  },
  {
    id: 'max-tokens',
    label: {
      chat: '`max_completion_tokens`',
      responses: '`max_output_tokens`',
      messages: '`max_tokens`',
      gemini: '`maxOutputTokens`',
    },
    scenario: { maxTokens: true },
    // The fakes end at the limit: chat `length`, Responses `incomplete`, Messages `max_tokens`.
    prepare: (provider) => provider.truncate(),
    expectClient: (outcome, cell) => answersText(outcome, cell, 'length'),
  },
  {
    id: 'stop',
    label: {
      chat: '`stop`',
      responses: 'Stop sequences',
      messages: '`stop_sequences`',
      gemini: '`stopSequences`',
    },
    scenario: { stop: true },
    // The answer ends on the sequence; Messages names it where the provider's API does (Anthropic).
    prepare: (provider) => provider.stopOnSequence(),
    expectClient: (outcome, cell) => {
      answersText(outcome, cell);
      const named = cell.ingress === 'messages' && cell.provider.namesStopSequence;
      expect(outcome.stopSequence).toBe(named ? STOP[0] : null);
    },
  },
  {
    id: 'sampling',
    label: '`temperature` + `top_p`',
    scenario: { sampling: true },
    expectClient: answersText,
  },
  {
    id: 'reasoning',
    label: {
      chat: '`reasoning_effort`',
      responses: '`reasoning.effort`',
      messages: '`thinking` budget',
      gemini: '`thinkingConfig` level + `includeThoughts`',
    },
    scenario: { reasoning: true },
    prepare: (provider) => provider.enableReasoning(),
    expectClient: (outcome, cell) => {
      answersText(outcome, cell);
      expectReasoning(outcome, cell);
    },
  },
  {
    id: 'reasoning-stream',
    label: {
      chat: '`reasoning_effort`, streamed',
      responses: '`reasoning.effort`, streamed',
      messages: '`thinking` budget, streamed',
      gemini: '`thinkingConfig`, streamed',
    },
    scenario: { reasoning: true, stream: true },
    prepare: (provider) => provider.enableReasoning(),
    expectClient: (outcome, cell) => {
      answersText(outcome, cell);
      expectReasoning(outcome, cell);
    },
  },
  {
    id: 'reasoning-tools',
    label: 'Reasoning + tool round trip (reasoning state kept)',
    scenario: { tools: true, reasoning: true },
    prepare: (provider) => provider.enableReasoning(),
    run: (driver, provider) => roundTrip(driver, provider, { tools: true, reasoning: true }),
    expectClient: (outcome, { provider }) => {
      expect(outcome.text).toBe(provider.afterToolResult);
      expect(outcome.finish).toBe('stop');
    },
  },
  { id: 'usage', label: 'Usage + exact cost', scenario: {}, expectClient: reportsUsage },
  {
    id: 'usage-stream',
    label: 'Usage + exact cost, streamed',
    scenario: { stream: true },
    expectClient: reportsUsage,
  },
];

export const labelOf = (feature: Feature, ingress: IngressId): string =>
  typeof feature.label === 'string' ? feature.label : feature.label[ingress];
