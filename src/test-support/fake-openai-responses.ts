import type { ServerResponse } from 'node:http';
import type { FakeToolCall } from './fake-openai-upstream.js';

/**
 * The Responses API side of the fake OpenAI upstream: the Response object and its event stream, as OpenAI
 * sends them (function calls included when the fake is told to call tools).
 */

/** What every fake answer reports using. */
export const FAKE_USAGE = { prompt_tokens: 12, completion_tokens: 7 };

function functionCallItem(call: FakeToolCall, status: string) {
  return {
    type: 'function_call',
    id: `fc_${call.id}`,
    call_id: call.id,
    name: call.name,
    arguments: status === 'completed' ? call.arguments : '',
    status,
  };
}

export function responseObject(model: string, reply: string, status: string, toolCalls: FakeToolCall[] = []) {
  // `incomplete` (opt-in, see `finishReason`) is a finished answer cut at max_output_tokens.
  const finished = status === 'completed' || status === 'incomplete';
  return {
    id: 'resp_fake123',
    object: 'response',
    created_at: 1_763_000_000,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: finished
      ? [
          {
            type: 'message',
            id: 'msg_fake123',
            status,
            role: 'assistant',
            content: [{ type: 'output_text', text: reply, annotations: [], logprobs: [] }],
          },
          ...toolCalls.map((call) => functionCallItem(call, 'completed')),
        ]
      : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: 1,
    top_p: 1,
    tool_choice: 'auto',
    tools: [],
    text: { format: { type: 'text' } },
    usage: finished
      ? {
          input_tokens: FAKE_USAGE.prompt_tokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: FAKE_USAGE.completion_tokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: FAKE_USAGE.prompt_tokens + FAKE_USAGE.completion_tokens,
        }
      : null,
  };
}

/** The lifecycle events a lax upstream leaves out (`sparse`): only created, deltas and the terminal event stay. */
const SKIPPED_WHEN_SPARSE = new Set([
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_item.done',
]);

/** Misbehaviours of one streamed `/responses` answer (a fake upstream's `faults`). */
export type ResponsesStreamFault =
  /** An `error` event (OpenAI's `ResponseErrorEvent`) after `afterDeltas` text deltas, then the end. */
  | { kind: 'responses-error-event'; afterDeltas: number; message: string }
  /**
   * `response.failed` (`server_error`) right after the response and its message item were announced, before any
   * text; with the tokens used when `billed` (`usage: null` otherwise, as OpenAI reports a response that failed
   * before it began).
   */
  | { kind: 'responses-failed'; billed: boolean }
  /** The stream ends without a terminal event: the connection closes cleanly, after `data: [DONE]` when `done`. */
  | { kind: 'responses-no-terminal'; done: boolean }
  /** Lax events: text deltas and `output_text.done` without `logprobs`, `response.completed` without `output`. */
  | { kind: 'responses-lax' };

const RESPONSES_FAULTS: ReadonlySet<string> = new Set([
  'responses-error-event',
  'responses-failed',
  'responses-no-terminal',
  'responses-lax',
]);

/** Whether a fault of the fake upstream is one of a streamed `/responses` answer. */
export function isResponsesStreamFault(fault: { kind: string } | undefined): fault is ResponsesStreamFault {
  return fault !== undefined && RESPONSES_FAULTS.has(fault.kind);
}

export interface StreamedResponse {
  model: string;
  reply: string;
  toolCalls: FakeToolCall[];
  status: string;
  /** Leave out the lifecycle events `SKIPPED_WHEN_SPARSE`. */
  sparse?: boolean | undefined;
  fault?: ResponsesStreamFault | undefined;
}

/** What a lax upstream leaves out of an event (the `responses-lax` fault). */
function laxEvent(event: Record<string, unknown>): Record<string, unknown> {
  if (event.type === 'response.output_text.delta' || event.type === 'response.output_text.done') {
    const { logprobs: _logprobs, ...rest } = event;
    return rest;
  }
  if (event.type === 'response.completed' && typeof event.response === 'object' && event.response !== null) {
    const { output: _output, ...response } = event.response as Record<string, unknown>;
    return { ...event, response };
  }
  return event;
}

export function streamResponses(res: ServerResponse, answer: StreamedResponse) {
  const { model, reply, toolCalls, status, sparse, fault } = answer;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let sequence = 0;
  const send = (sent: Record<string, unknown>) => {
    const event = fault?.kind === 'responses-lax' ? laxEvent(sent) : sent;
    return (
      (sparse && SKIPPED_WHEN_SPARSE.has(String(event.type))) ||
      res.write(
        `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`,
      )
    );
  };
  const item = { type: 'message', id: 'msg_fake123', status: 'in_progress', role: 'assistant', content: [] };
  send({ type: 'response.created', response: responseObject(model, reply, 'in_progress') });
  send({ type: 'response.in_progress', response: responseObject(model, reply, 'in_progress') });
  send({ type: 'response.output_item.added', output_index: 0, item });
  const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
  send({
    type: 'response.content_part.added',
    item_id: 'msg_fake123',
    output_index: 0,
    content_index: 0,
    part,
  });
  if (fault?.kind === 'responses-failed') {
    const error = { code: 'server_error', message: 'The server had an error while processing your request.' };
    const usage = responseObject(model, reply, 'completed').usage;
    send({
      type: 'response.failed',
      response: { ...responseObject(model, reply, 'failed'), error, usage: fault.billed ? usage : null },
    });
    res.end();
    return;
  }
  for (const [index, delta] of reply.split(/(?<= )/).entries()) {
    if (fault?.kind === 'responses-error-event' && index === fault.afterDeltas) {
      send({ type: 'error', code: 'server_error', message: fault.message, param: null });
      res.end();
      return;
    }
    send({
      type: 'response.output_text.delta',
      item_id: 'msg_fake123',
      output_index: 0,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }
  send({
    type: 'response.output_text.done',
    item_id: 'msg_fake123',
    output_index: 0,
    content_index: 0,
    text: reply,
    logprobs: [],
  });
  const done = { ...part, text: reply };
  send({
    type: 'response.content_part.done',
    item_id: 'msg_fake123',
    output_index: 0,
    content_index: 0,
    part: done,
  });
  const completed = responseObject(model, reply, status, toolCalls);
  send({ type: 'response.output_item.done', output_index: 0, item: completed.output[0] });
  // Each function call as OpenAI streams it: the item, then its arguments in two fragments.
  toolCalls.forEach((call, index) => {
    const output_index = index + 1;
    const item_id = `fc_${call.id}`;
    const half = Math.ceil(call.arguments.length / 2);
    send({ type: 'response.output_item.added', output_index, item: functionCallItem(call, 'in_progress') });
    for (const delta of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      send({ type: 'response.function_call_arguments.delta', item_id, output_index, delta });
    }
    send({ type: 'response.function_call_arguments.done', item_id, output_index, arguments: call.arguments });
    send({ type: 'response.output_item.done', output_index, item: functionCallItem(call, 'completed') });
  });
  if (fault?.kind === 'responses-no-terminal') {
    res.end(fault.done ? 'data: [DONE]\n\n' : undefined);
    return;
  }
  const terminal = status === 'completed' ? 'response.completed' : 'response.incomplete';
  send({ type: terminal, response: completed });
  res.end();
}

/** The encrypted content of the fake's native compaction items. */
export const FAKE_COMPACTION = 'gAAAAfake-native-compaction==';

/** OpenAI's `/responses/compact` answer: the input's user messages, then one (opaque) compaction item. */
export function compactionObject(body: Record<string, unknown>) {
  const input = Array.isArray(body.input) ? body.input : [{ role: 'user', content: body.input }];
  const users = input.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && 'role' in item && item.role === 'user',
  );
  return {
    id: 'resp_fakecompact',
    object: 'response.compaction',
    created_at: 1_763_000_000,
    output: [
      ...users.map((item, index) => ({
        id: `msg_fake${index}`,
        type: 'message',
        status: 'completed',
        role: 'user',
        content:
          typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content,
      })),
      { id: 'cmp_fake123', type: 'compaction', encrypted_content: FAKE_COMPACTION },
    ],
    usage: {
      input_tokens: FAKE_USAGE.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: FAKE_USAGE.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: FAKE_USAGE.prompt_tokens + FAKE_USAGE.completion_tokens,
    },
  };
}
