import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { geminiDriver } from './gemini-driver.js';
import { finishOf, messagesDriver, reasoningContent } from './messages-driver.js';
import {
  type CanonicalUsage,
  type ClientToolCall,
  EFFORT,
  type IngressId,
  JSON_SCHEMA,
  MAX_TOKENS,
  type Outcome,
  PNG_DATA_URI,
  type Scenario,
  STOP,
  SYSTEM_TEXT,
  TEMPERATURE,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_PARAMETERS,
  TOP_P,
  USER_TEXT,
} from './scenario.js';

/** Drives one ingress of the gateway with its official client. */
export interface IngressDriver {
  run(model: string, scenario: Scenario): Promise<Outcome>;
  /** The usage object this ingress answers for a provider's canonical usage. */
  usageOf(usage: CanonicalUsage): Record<string, unknown>;
}

export const WARNINGS = 'x-gateway-warnings';

export const notStreamed = (): Promise<Outcome> => {
  throw new Error('the tool round trip is driven without streaming');
};

/** Collects streamed tool-call fragments; a fragment for a call that was never announced is an error. */
export class StreamedCalls {
  private readonly calls = new Map<string | number, ClientToolCall>();
  start(key: string | number, id: string, name: string): void {
    this.calls.set(key, { id, name, arguments: '' });
  }
  append(key: string | number, fragment: string): void {
    const call = this.calls.get(key);
    if (!call) throw new Error(`arguments arrived for tool call ${key} before the call was announced`);
    call.arguments += fragment;
  }
  get(key: string | number): ClientToolCall | undefined {
    return this.calls.get(key);
  }
  get list(): ClientToolCall[] {
    return [...this.calls.values()];
  }
}

export function ingressDrivers(baseURL: string, key: string): Record<IngressId, IngressDriver> {
  const openai = new OpenAI({ apiKey: key, baseURL, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: key, baseURL: baseURL.replace(/\/v1$/, ''), maxRetries: 0 });
  return {
    chat: chatDriver(openai),
    responses: responsesDriver(openai),
    messages: messagesDriver(anthropic),
    gemini: geminiDriver(baseURL, key),
  };
}

// --- chat completions ---------------------------------------------------------------------------------

function chatDriver(client: OpenAI): IngressDriver {
  const params = (model: string, s: Scenario): OpenAI.ChatCompletionCreateParamsNonStreaming => ({
    model,
    messages: [
      ...(s.system ? [{ role: 'system' as const, content: SYSTEM_TEXT }] : []),
      {
        role: 'user',
        content: s.image
          ? [
              { type: 'text', text: USER_TEXT },
              { type: 'image_url', image_url: { url: PNG_DATA_URI } },
            ]
          : USER_TEXT,
      },
    ],
    ...(s.tools
      ? {
          tools: [
            {
              type: 'function',
              function: { name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: TOOL_PARAMETERS },
            },
          ],
        }
      : {}),
    ...(s.forceTool ? { tool_choice: { type: 'function', function: { name: TOOL_NAME } } } : {}),
    ...(s.jsonSchema
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'weather', schema: JSON_SCHEMA, strict: true },
          },
        }
      : {}),
    ...(s.maxTokens ? { max_completion_tokens: MAX_TOKENS } : {}),
    ...(s.stop ? { stop: STOP } : {}),
    ...(s.sampling ? { temperature: TEMPERATURE, top_p: TOP_P } : {}),
    ...(s.reasoning ? { reasoning_effort: EFFORT } : {}),
  });

  const send = async (request: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Outcome> => {
    const { data, response } = await client.chat.completions.create(request).withResponse();
    const choice = data.choices[0];
    const message = choice?.message;
    const toolCalls = (message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, ...call.function }] : [],
    );
    return {
      text: message?.content ?? '',
      reasoning: reasoningContent(message),
      toolCalls,
      finish: finishOf(choice?.finish_reason, { tool_calls: 'tool', stop: 'stop', length: 'length' }),
      stopSequence: null,
      usage: { ...data.usage },
      warnings: response.headers.get(WARNINGS),
      sendToolResult: async (result) => {
        const call = toolCalls[0];
        if (!message || !call) throw new Error('the answer has no tool call to answer');
        // The assistant message goes back as the client got it (Gemini's `extra_content` included).
        const turn = message as OpenAI.ChatCompletionAssistantMessageParam;
        const tool = { role: 'tool' as const, tool_call_id: call.id, content: result };
        return send({ ...request, messages: [...request.messages, turn, tool] });
      },
    };
  };

  const stream = async (request: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Outcome> => {
    const { data, response } = await client.chat.completions
      .create({ ...request, stream: true })
      .withResponse();
    const calls = new StreamedCalls();
    let text = '';
    let reasoning = '';
    let finish: string | null | undefined;
    let usage: Record<string, unknown> = {};
    for await (const chunk of data) {
      if (chunk.usage) usage = { ...chunk.usage };
      const choice = chunk.choices[0];
      if (!choice) continue;
      text += choice.delta.content ?? '';
      reasoning += reasoningContent(choice.delta);
      finish = choice.finish_reason ?? finish;
      for (const delta of choice.delta.tool_calls ?? []) {
        if (delta.id) calls.start(delta.index, delta.id, delta.function?.name ?? '');
        calls.append(delta.index, delta.function?.arguments ?? '');
      }
    }
    return {
      text,
      reasoning,
      toolCalls: calls.list,
      finish: finishOf(finish, { tool_calls: 'tool', stop: 'stop', length: 'length' }),
      stopSequence: null,
      usage,
      warnings: response.headers.get(WARNINGS),
      sendToolResult: notStreamed,
    };
  };

  return {
    run: (model, s) => (s.stream ? stream(params(model, s)) : send(params(model, s))),
    usageOf: (u) => ({
      prompt_tokens: u.input,
      completion_tokens: u.output,
      total_tokens: u.input + u.output,
      prompt_tokens_details: { cached_tokens: u.cachedRead },
      completion_tokens_details: { reasoning_tokens: u.reasoning },
      cost: u.cost,
    }),
  };
}

// --- Responses ----------------------------------------------------------------------------------------

function responsesDriver(client: OpenAI): IngressDriver {
  const params = (model: string, s: Scenario): OpenAI.Responses.ResponseCreateParamsNonStreaming => ({
    model,
    ...(s.system ? { instructions: SYSTEM_TEXT } : {}),
    input: s.image
      ? [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: USER_TEXT },
              { type: 'input_image', image_url: PNG_DATA_URI, detail: 'auto' },
            ],
          },
        ]
      : USER_TEXT,
    ...(s.tools
      ? {
          tools: [
            {
              type: 'function',
              name: TOOL_NAME,
              description: TOOL_DESCRIPTION,
              parameters: TOOL_PARAMETERS,
              strict: false,
            },
          ],
        }
      : {}),
    ...(s.forceTool ? { tool_choice: { type: 'function', name: TOOL_NAME } } : {}),
    ...(s.jsonSchema
      ? { text: { format: { type: 'json_schema', name: 'weather', schema: JSON_SCHEMA, strict: true } } }
      : {}),
    ...(s.maxTokens ? { max_output_tokens: MAX_TOKENS } : {}),
    ...(s.sampling ? { temperature: TEMPERATURE, top_p: TOP_P } : {}),
    ...(s.reasoning ? { reasoning: { effort: EFFORT } } : {}),
  });

  const outcomeOf = (response: OpenAI.Responses.Response) => {
    let text = '';
    let reasoning = '';
    const toolCalls: ClientToolCall[] = [];
    for (const item of response.output) {
      if (item.type === 'message') {
        for (const part of item.content) if (part.type === 'output_text') text += part.text;
      }
      if (item.type === 'reasoning') for (const part of item.summary) reasoning += part.text;
      if (item.type === 'function_call')
        toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    }
    const cut =
      response.status === 'incomplete' && response.incomplete_details?.reason === 'max_output_tokens';
    const finish: Outcome['finish'] =
      toolCalls.length > 0 ? 'tool' : response.status === 'completed' ? 'stop' : cut ? 'length' : 'other';
    return { text, reasoning, toolCalls, finish, stopSequence: null, usage: { ...response.usage } };
  };

  const send = async (request: OpenAI.Responses.ResponseCreateParamsNonStreaming): Promise<Outcome> => {
    const { data, response } = await client.responses.create(request).withResponse();
    const outcome = outcomeOf(data);
    return {
      ...outcome,
      warnings: response.headers.get(WARNINGS),
      sendToolResult: async (result) => {
        const call = outcome.toolCalls[0];
        if (!call) throw new Error('the answer has no function call to answer');
        const input =
          typeof request.input === 'string' ? [userMessage(request.input)] : (request.input ?? []);
        // As the OpenAI guide does it: the request's input, the response's output items, the result.
        const output = { type: 'function_call_output' as const, call_id: call.id, output: result };
        const items = data.output.filter(
          (
            item,
          ): item is
            | OpenAI.Responses.ResponseOutputMessage
            | OpenAI.Responses.ResponseFunctionToolCall
            | OpenAI.Responses.ResponseReasoningItem =>
            item.type === 'message' || item.type === 'function_call' || item.type === 'reasoning',
        );
        return send({ ...request, input: [...input, ...items, output] });
      },
    };
  };

  const stream = async (request: OpenAI.Responses.ResponseCreateParamsNonStreaming): Promise<Outcome> => {
    const { data, response } = await client.responses.create({ ...request, stream: true }).withResponse();
    const calls = new StreamedCalls();
    let text = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of data) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.output_item.added' && event.item.type === 'function_call') {
        calls.start(event.output_index, event.item.call_id, event.item.name);
      }
      if (event.type === 'response.function_call_arguments.delta')
        calls.append(event.output_index, event.delta);
      if (event.type === 'response.function_call_arguments.done') {
        const joined = calls.get(event.output_index)?.arguments;
        if (joined !== event.arguments) {
          throw new Error(`arguments.done ${event.arguments} differs from the deltas joined: ${joined}`);
        }
      }
      if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
    }
    if (!final) throw new Error('the stream ended without response.completed or response.incomplete');
    const streamedCalls = calls.list;
    const finalCalls = outcomeOf(final).toolCalls;
    if (JSON.stringify(finalCalls) !== JSON.stringify(streamedCalls)) {
      throw new Error(
        `the completed response's calls ${JSON.stringify(finalCalls)} differ from the stream's`,
      );
    }
    return {
      ...outcomeOf(final),
      text,
      warnings: response.headers.get(WARNINGS),
      sendToolResult: notStreamed,
    };
  };

  return {
    run: (model, s) => (s.stream ? stream(params(model, s)) : send(params(model, s))),
    usageOf: (u) => ({
      input_tokens: u.input,
      input_tokens_details: { cached_tokens: u.cachedRead },
      output_tokens: u.output,
      output_tokens_details: { reasoning_tokens: u.reasoning },
      total_tokens: u.input + u.output,
      cost: u.cost,
    }),
  };
}

const userMessage = (text: string): OpenAI.Responses.EasyInputMessage => ({ role: 'user', content: text });
