import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import {
  Agent,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  Runner,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let client: OpenAI;
const CALL = { id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' };

beforeAll(async () => {
  setTracingDisabled(true);
  env = await startTestGateway();
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());
beforeEach(() => {
  env.upstream.toolCalls = [CALL];
  env.upstream.toolCallsWhenOffered = true;
  env.upstream.responsesToolCalls = true;
});

describe('@openai/agents through the gateway', () => {
  const weather = tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `Sunny in ${city}`,
  });

  it.each([
    ['Responses', () => new OpenAIResponsesModel(client, 'acme/chat-large'), '/responses'],
    ['chat', () => new OpenAIChatCompletionsModel(client, 'acme/chat-large'), '/chat/completions'],
  ])('runs an agent with a function tool over %s', async (_name, model, path) => {
    const before = env.upstream.received.length;
    const agent = new Agent({
      name: 'forecaster',
      instructions: 'Answer briefly.',
      model: model(),
      tools: [weather],
    });
    const result = await new Runner().run(agent, 'What is the weather in Paris?', { maxTurns: 4 });
    expect(result.finalOutput).toBe(env.upstream.reply);
    const sent = env.upstream.received.slice(before).filter((r) => r.path.endsWith(path));
    // First turn: the model calls the tool; second: the tool's result goes back and the model answers.
    expect(sent).toHaveLength(2);
    expect(JSON.stringify(sent[1]?.body)).toContain('Sunny in Paris');
  });
});

describe('@langchain/openai through the gateway', () => {
  const chat = (options: { useResponsesApi?: boolean } = {}) =>
    new ChatOpenAI({
      model: 'acme/chat-large',
      apiKey: TEST_KEY,
      configuration: { baseURL: env.baseURL },
      maxRetries: 0,
      ...options,
    });

  it.each([false, true])('invokes and streams (Responses API: %s)', async (useResponsesApi) => {
    env.upstream.toolCalls = undefined;
    const answer = await chat({ useResponsesApi }).invoke([new HumanMessage('Hi')]);
    expect(
      answer.content === env.upstream.reply || JSON.stringify(answer.content).includes(env.upstream.reply),
    ).toBe(true);
    expect(answer.usage_metadata?.input_tokens).toBe(12);
    const path = useResponsesApi ? '/v1/responses' : '/v1/chat/completions';
    expect(env.upstream.received.at(-1)?.path).toBe(path);
    let text = '';
    for await (const chunk of await chat({ useResponsesApi }).stream('Hi')) {
      text += typeof chunk.content === 'string' ? chunk.content : chunk.text;
    }
    expect(text).toBe(env.upstream.reply);
  });

  it('bindTools: the model calls the tool, and answers its result', async () => {
    const weather = langchainTool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
      name: 'get_weather',
      description: 'The weather in a city',
      schema: z.object({ city: z.string() }),
    });
    const model = chat().bindTools([weather]);
    const question = new HumanMessage('Weather in Paris?');
    const call = await model.invoke([question]);
    expect(call.tool_calls).toEqual([
      expect.objectContaining({ id: CALL.id, name: 'get_weather', args: { city: 'Paris' } }),
    ]);
    const result = new ToolMessage({ tool_call_id: CALL.id, content: 'Sunny in Paris' });
    const answer = await model.invoke([question, new AIMessage(call), result]);
    expect(answer.content).toBe(env.upstream.reply);
  });
});
