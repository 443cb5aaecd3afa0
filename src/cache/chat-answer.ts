import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../json/json.js';
import { withMembers } from '../json/with-members.js';

/**
 * A chat completion kept whole, from a stream of chunks and back to one: what lets one cached answer serve
 * both plain and streamed requests. Only what both forms carry is assembled (text, reasoning, refusal,
 * Claude's signed thinking blocks, tool calls with their `extra_content`, finish reason and the stop sequence
 * that ended the choice); a stream with anything else is not kept.
 */

/** Finish reasons of a complete answer: the model ended on its own (not cut at max_tokens, not filtered). */
export const COMPLETE_FINISH_REASONS: ReadonlySet<string> = new Set(['stop', 'tool_calls', 'function_call']);

/** Message members a replayed stream carries; `null` or empty values of others are ignored. */
const STREAMED_MEMBERS = new Set([
  'role',
  'content',
  'reasoning_content',
  'refusal',
  'tool_calls',
  'thinking_blocks',
]);

/**
 * Choice members beside `finish_reason` that name the stop sequence that ended it: `matched_stop` (SGLang's,
 * and what the Anthropic adapter reports Claude's `stop_sequence` as) and vLLM's `stop_reason`. The Messages
 * ingress reads them back as `stop_sequence`, so a hit must carry them as the live answer did.
 */
const STOP_MEMBERS = ['matched_stop', 'stop_reason'] as const;

/** A tool call as assembled; `extra` is its `extra_content` (Gemini's thought signature rides there). */
interface CallState {
  id: string;
  name: string;
  arguments: string;
  extra: JsonObject | undefined;
}

interface ChoiceState {
  index: number;
  content: string;
  reasoning: string;
  refusal: string;
  thinkingBlocks: unknown[];
  calls: CallState[];
  callsByIndex: Map<number, number>;
  finishReason: string | undefined;
  /** The choice's `STOP_MEMBERS` the stream gave (a string or a token id; vLLM sends `null` until the end). */
  stop: JsonObject;
}

const isEmpty = (value: unknown): boolean =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

/** Assembles streamed `chat.completion.chunk`s into the chat completion they add up to. */
export class ChatAssembler {
  private readonly choices = new Map<number, ChoiceState>();
  private header: JsonObject = {};
  /** Set when a chunk carried something the assembly cannot keep: the answer is then not cached. */
  private unsupported = false;
  /** Characters of text assembled so far. */
  private size = 0;

  /** @param maxChars past this much text the answer could not be kept anyway: assembly stops. */
  constructor(private readonly maxChars = Number.POSITIVE_INFINITY) {}

  add(chunk: JsonObject): void {
    if (this.unsupported) return;
    if (Object.keys(this.header).length === 0) {
      const { choices: _choices, usage: _usage, ...rest } = chunk;
      this.header = rest;
    }
    for (const choice of arrayMember(chunk, 'choices') ?? []) {
      if (!isRecord(choice)) continue;
      if (!isEmpty(choice.logprobs)) this.unsupported = true;
      const state = this.choice(typeof choice.index === 'number' ? choice.index : 0);
      const delta = recordMember(choice, 'delta') ?? {};
      for (const [name, value] of Object.entries(delta)) {
        if (!STREAMED_MEMBERS.has(name) && !isEmpty(value)) this.unsupported = true;
      }
      this.size += JSON.stringify(delta).length;
      if (this.size > this.maxChars) {
        this.unsupported = true;
        return;
      }
      state.content += stringMember(delta, 'content') ?? '';
      state.reasoning += stringMember(delta, 'reasoning_content') ?? '';
      state.refusal += stringMember(delta, 'refusal') ?? '';
      // A loop, not a spread: an upstream's array of 200,000 blocks must not overflow the call stack.
      for (const block of arrayMember(delta, 'thinking_blocks') ?? []) state.thinkingBlocks.push(block);
      for (const call of arrayMember(delta, 'tool_calls') ?? []) this.addCall(state, call);
      if (typeof choice.finish_reason === 'string') state.finishReason = choice.finish_reason;
      Object.assign(state.stop, stopMembers(choice));
    }
  }

  /** True once a chunk was added (its id, model and such are the completion's). */
  get started(): boolean {
    return this.choices.size > 0;
  }

  /** Choice 0's content delta of a chunk that carries nothing else: as `add` would take it, unparsed. */
  addContent(text: string): void {
    if (this.unsupported) return;
    this.size += JSON.stringify({ content: text }).length;
    if (this.size > this.maxChars) {
      this.unsupported = true;
      return;
    }
    this.choice(0).content += text;
  }

  /** The whole completion, or undefined when the stream did not end complete or carried what cannot be kept. */
  completion(): JsonObject | undefined {
    const choices = [...this.choices.values()].sort((a, b) => a.index - b.index);
    if (this.unsupported || choices.length === 0) return undefined;
    if (choices.some((choice) => !COMPLETE_FINISH_REASONS.has(choice.finishReason ?? ''))) return undefined;
    return withMembers(this.header, {
      object: 'chat.completion',
      choices: choices.map((choice) => ({
        index: choice.index,
        message: message(choice),
        logprobs: null,
        finish_reason: choice.finishReason,
        ...choice.stop,
      })),
    });
  }

  private choice(index: number): ChoiceState {
    let state = this.choices.get(index);
    if (!state) {
      state = {
        index,
        content: '',
        reasoning: '',
        refusal: '',
        thinkingBlocks: [],
        calls: [],
        callsByIndex: new Map(),
        finishReason: undefined,
        stop: {},
      };
      this.choices.set(index, state);
    }
    return state;
  }

  private addCall(state: ChoiceState, call: unknown): void {
    const fn = recordMember(call, 'function');
    const position = isRecord(call) && typeof call.index === 'number' ? call.index : state.calls.length - 1;
    let at = state.callsByIndex.get(position);
    if (at === undefined) {
      at = state.calls.length;
      state.calls.push({ id: '', name: '', arguments: '', extra: undefined });
      state.callsByIndex.set(position < 0 ? at : position, at);
    }
    const entry = state.calls[at];
    if (!entry) return;
    entry.id ||= stringMember(call, 'id') ?? '';
    entry.name ||= stringMember(fn, 'name') ?? '';
    entry.arguments += stringMember(fn, 'arguments') ?? '';
    entry.extra ??= recordMember(call, 'extra_content');
  }
}

/** The choice's members that name the stop sequence that ended it (see `STOP_MEMBERS`). */
function stopMembers(choice: JsonObject): JsonObject {
  const found: JsonObject = {};
  for (const name of STOP_MEMBERS) {
    const value = choice[name];
    if (typeof value === 'string' || typeof value === 'number') found[name] = value;
  }
  return found;
}

/** A tool call with its `extra_content` when it had one, as the provider adapter gave it. */
function toolCallOf(id: string, fn: JsonObject, extra: JsonObject | undefined): JsonObject {
  return { id, type: 'function', function: fn, ...(extra ? { extra_content: extra } : {}) };
}

function message(choice: ChoiceState): JsonObject {
  const result: JsonObject = {
    role: 'assistant',
    content: choice.content === '' && choice.calls.length > 0 ? null : choice.content,
    refusal: choice.refusal === '' ? null : choice.refusal,
  };
  if (choice.reasoning !== '') result.reasoning_content = choice.reasoning;
  if (choice.thinkingBlocks.length > 0) result.thinking_blocks = choice.thinkingBlocks;
  if (choice.calls.length > 0) {
    result.tool_calls = choice.calls.map((call) =>
      toolCallOf(call.id, { name: call.name, arguments: call.arguments }, call.extra),
    );
  }
  return result;
}

/** True when a plain completion can be replayed as a stream: every message member is one a stream carries. */
export function isStreamable(completion: JsonObject): boolean {
  return (arrayMember(completion, 'choices') ?? []).every((choice) => {
    if (!isRecord(choice) || !isEmpty(choice.logprobs)) return false;
    const found = recordMember(choice, 'message') ?? {};
    return Object.entries(found).every(([name, value]) => STREAMED_MEMBERS.has(name) || isEmpty(value));
  });
}

/** True when every choice of a plain completion ended complete. */
export function isCompleteCompletion(completion: JsonObject): boolean {
  const choices = arrayMember(completion, 'choices') ?? [];
  return (
    choices.length > 0 &&
    choices.every((choice) => COMPLETE_FINISH_REASONS.has(stringMember(choice, 'finish_reason') ?? ''))
  );
}

/**
 * The chunks a stream of this completion is made of, per choice: the role (with reasoning), signed thinking
 * blocks, the text, the refusal, each tool call whole (index, id, name, arguments, `extra_content`), then the
 * finish reason with the stop sequence that ended the choice.
 */
export function completionChunks(completion: JsonObject): JsonObject[] {
  const { choices: _choices, usage: _usage, object: _object, ...header } = completion;
  const chunks: JsonObject[] = [];
  const push = (index: number, delta: JsonObject, finishReason: unknown = null, stop: JsonObject = {}) =>
    chunks.push(
      withMembers(header, {
        object: 'chat.completion.chunk',
        choices: [{ index, delta, logprobs: null, finish_reason: finishReason, ...stop }],
      }),
    );
  for (const [position, choice] of (arrayMember(completion, 'choices') ?? []).entries()) {
    const index = isRecord(choice) && typeof choice.index === 'number' ? choice.index : position;
    const found = recordMember(choice, 'message') ?? {};
    const reasoning = stringMember(found, 'reasoning_content');
    push(index, { role: 'assistant', content: '', ...(reasoning ? { reasoning_content: reasoning } : {}) });
    const blocks = arrayMember(found, 'thinking_blocks') ?? [];
    if (blocks.length > 0) push(index, { thinking_blocks: blocks });
    const content = stringMember(found, 'content');
    if (content) push(index, { content });
    const refusal = stringMember(found, 'refusal');
    if (refusal) push(index, { refusal });
    for (const [callIndex, call] of (arrayMember(found, 'tool_calls') ?? []).entries()) {
      const fn = recordMember(call, 'function');
      const whole = { name: stringMember(fn, 'name') ?? '', arguments: stringMember(fn, 'arguments') ?? '' };
      const toolCall = toolCallOf(stringMember(call, 'id') ?? '', whole, recordMember(call, 'extra_content'));
      push(index, { tool_calls: [{ index: callIndex, ...toolCall }] });
    }
    const stop = isRecord(choice) ? stopMembers(choice) : {};
    push(index, {}, stringMember(choice, 'finish_reason') ?? 'stop', stop);
  }
  return chunks;
}
