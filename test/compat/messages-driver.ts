import type Anthropic from '@anthropic-ai/sdk';
import { type IngressDriver, notStreamed, StreamedCalls, WARNINGS } from './ingresses.js';
import {
  type ClientToolCall,
  JSON_SCHEMA,
  MAX_TOKENS,
  type Outcome,
  type Scenario,
  STOP,
  SYSTEM_TEXT,
  TEMPERATURE,
  THINKING_BUDGET,
  TINY_PNG_BASE64,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_PARAMETERS,
  TOP_P,
  USER_TEXT,
} from './scenario.js';

// --- Anthropic Messages -------------------------------------------------------------------------------

export function messagesDriver(client: Anthropic): IngressDriver {
  const params = (model: string, s: Scenario): Anthropic.MessageCreateParamsNonStreaming => ({
    model,
    max_tokens: s.maxTokens ? MAX_TOKENS : s.reasoning ? 2 * THINKING_BUDGET : 1024,
    ...(s.system ? { system: SYSTEM_TEXT } : {}),
    messages: [
      {
        role: 'user',
        content: s.image
          ? [
              { type: 'text', text: USER_TEXT },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 } },
            ]
          : USER_TEXT,
      },
    ],
    ...(s.tools
      ? {
          tools: [
            {
              name: TOOL_NAME,
              description: TOOL_DESCRIPTION,
              input_schema: { ...TOOL_PARAMETERS, type: 'object' as const },
            },
          ],
        }
      : {}),
    ...(s.forceTool ? { tool_choice: { type: 'tool', name: TOOL_NAME } } : {}),
    ...(s.jsonSchema ? { output_config: { format: { type: 'json_schema', schema: JSON_SCHEMA } } } : {}),
    ...(s.stop ? { stop_sequences: STOP } : {}),
    ...(s.sampling ? { temperature: TEMPERATURE, top_p: TOP_P } : {}),
    ...(s.reasoning ? { thinking: { type: 'enabled', budget_tokens: THINKING_BUDGET } } : {}),
  });

  const send = async (request: Anthropic.MessageCreateParamsNonStreaming): Promise<Outcome> => {
    const { data, response } = await client.messages.create(request).withResponse();
    let text = '';
    let reasoning = '';
    const toolCalls: ClientToolCall[] = [];
    for (const block of data.content) {
      if (block.type === 'text') text += block.text;
      if (block.type === 'thinking') reasoning += block.thinking;
      if (block.type === 'tool_use')
        toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
    }
    return {
      text,
      reasoning,
      toolCalls,
      finish: finishOf(data.stop_reason, MESSAGES_FINISH),
      stopSequence: data.stop_sequence,
      usage: { ...data.usage },
      warnings: response.headers.get(WARNINGS),
      sendToolResult: async (result) => {
        const call = toolCalls[0];
        if (!call) throw new Error('the answer has no tool_use block to answer');
        const messages: Anthropic.MessageParam[] = [
          ...request.messages,
          { role: 'assistant', content: data.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: result }] },
        ];
        return send({ ...request, messages });
      },
    };
  };

  const stream = async (request: Anthropic.MessageCreateParamsNonStreaming): Promise<Outcome> => {
    const { data, response } = await client.messages.create({ ...request, stream: true }).withResponse();
    const calls = new StreamedCalls();
    let text = '';
    let reasoning = '';
    let stop: string | null | undefined;
    let stopSequence: string | null = null;
    let usage: Record<string, unknown> = {};
    for await (const event of data) {
      if (event.type === 'content_block_delta' && event.delta.type === 'thinking_delta') {
        reasoning += event.delta.thinking;
      }
      if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
        calls.start(event.index, event.content_block.id, event.content_block.name);
      }
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
        calls.append(event.index, event.delta.partial_json);
      }
      if (event.type === 'message_delta') {
        stop = event.delta.stop_reason;
        stopSequence = event.delta.stop_sequence;
        usage = { ...event.usage };
      }
    }
    return {
      text,
      reasoning,
      toolCalls: calls.list,
      finish: finishOf(stop, MESSAGES_FINISH),
      stopSequence,
      usage,
      warnings: response.headers.get(WARNINGS),
      sendToolResult: notStreamed,
    };
  };

  return {
    run: (model, s) => (s.stream ? stream(params(model, s)) : send(params(model, s))),
    usageOf: (u) => ({
      input_tokens: u.input - u.cachedRead - u.cacheWrite,
      cache_read_input_tokens: u.cachedRead,
      cache_creation_input_tokens: u.cacheWrite,
      output_tokens: u.output,
      cost: u.cost,
    }),
  };
}

const MESSAGES_FINISH: Record<string, Outcome['finish']> = {
  tool_use: 'tool',
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
};

export function finishOf(
  reason: string | null | undefined,
  names: Record<string, Outcome['finish']>,
): Outcome['finish'] {
  return (reason ? names[reason] : undefined) ?? 'other';
}

/** The `reasoning_content` a chat message or delta carries (the gateway's convention beside OpenAI's). */
export function reasoningContent(message: object | undefined): string {
  const value: unknown = message && Reflect.get(message, 'reasoning_content');
  return typeof value === 'string' ? value : '';
}
