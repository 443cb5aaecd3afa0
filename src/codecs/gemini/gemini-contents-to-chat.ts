import { randomUUID } from 'node:crypto';
import { badRequestQuoting } from '../../errors/client-quote.js';
import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';

/** Warnings of one translation, each kept once, in the order first raised. */
export type Warnings = Set<string>;

/** A function call of the history, and whether a function response answered it yet. */
interface Call {
  id: string;
  name: string;
  answered: boolean;
}

/** Calls in order, kept in a queue per id and per name, so that pairing costs linear time in all. */
class Calls {
  readonly #byId = new Map<string, CallQueue>();
  readonly #byName = new Map<string, CallQueue>();

  add(call: Call): void {
    queueOf(this.#byId, call.id).push(call);
    queueOf(this.#byName, call.name).push(call);
  }

  /** The first unanswered call with `id`, else the first unanswered one named `name`; marked answered. */
  answer(id: string | undefined, name: string): Call | undefined {
    const call =
      (id === undefined ? undefined : this.#byId.get(id)?.first()) ?? this.#byName.get(name)?.first();
    if (call) call.answered = true;
    return call;
  }
}

/** Calls of one id or name in order; answered ones at its head are skipped once, for good. */
class CallQueue {
  readonly #calls: Call[] = [];
  #head = 0;

  push(call: Call): void {
    this.#calls.push(call);
  }

  first(): Call | undefined {
    while (this.#head < this.#calls.length && this.#calls[this.#head]?.answered) this.#head += 1;
    return this.#calls[this.#head];
  }
}

function queueOf(queues: Map<string, CallQueue>, key: string): CallQueue {
  let queue = queues.get(key);
  if (!queue) {
    queue = new CallQueue();
    queues.set(key, queue);
  }
  return queue;
}

/** Audio media types chat's `input_audio` takes, by format. */
const AUDIO_FORMATS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mp3': 'mp3',
  'audio/mpeg': 'mp3',
};

/** An id for a function call the client sent without one (Gemini's own calls usually have none). */
export const newCallId = (): string => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/**
 * Gemini `contents` as chat messages: `model` turns become assistant messages (text, tool calls, Claude's
 * signed thinking), `user` turns user messages, and their `functionResponse` parts tool messages placed
 * first, right after the calls they answer. Gemini pairs a response with its call by name (or by `id` when
 * the client kept it); chat pairs by id, so each response takes the id of the first unanswered call of
 * that name. Parts chat cannot carry are dropped with a warning.
 * Reference: https://ai.google.dev/api/caching#Content
 */
export function contentsToMessages(contents: readonly unknown[], warnings: Warnings): JsonObject[] {
  const messages: JsonObject[] = [];
  const calls = new Calls();
  // Consecutive model contents are one turn: a client that keeps a streamed answer as it came (one content
  // per chunk, as @google/genai's chat does) has a thought's text and its signature in different contents.
  let turn: ModelPart[] = [];
  const endTurn = () => {
    const message = turn.length > 0 ? modelMessage(turn, calls, warnings) : undefined;
    if (message) messages.push(message);
    turn = [];
  };
  contents.forEach((content, index) => {
    const at = `contents.${index}`;
    const parts = arrayMember(content, 'parts') ?? [];
    if (stringMember(content, 'role') === 'model') {
      parts.forEach((part, partIndex) => {
        turn.push({ part, path: `${at}.parts.${partIndex}` });
      });
      return;
    }
    endTurn();
    for (const message of userMessages(parts, at, calls, warnings)) messages.push(message);
  });
  endTurn();
  return messages;
}

/** The text of `systemInstruction` (a string, or a content whose text parts are joined by a blank line). */
export function systemText(instruction: unknown, warnings: Warnings): string {
  if (typeof instruction === 'string') return instruction;
  const texts: string[] = [];
  for (const part of arrayMember(instruction, 'parts') ?? []) {
    const text = stringMember(part, 'text');
    if (text !== undefined) texts.push(text);
    else warnings.add('systemInstruction takes text parts only on this route; other parts were dropped');
  }
  return texts.filter((text) => text !== '').join('\n\n');
}

function userMessages(parts: unknown[], at: string, calls: Calls, warnings: Warnings): JsonObject[] {
  const tools: JsonObject[] = [];
  const content: JsonObject[] = [];
  parts.forEach((part, index) => {
    const path = `${at}.parts.${index}`;
    if (!isRecord(part)) throw badRequest(`${path}: must be an object`, path);
    const response = recordMember(part, 'functionResponse');
    if (response) tools.push(toolMessage(response, path, calls));
    else {
      const converted = userPart(part, path, warnings);
      if (converted) content.push(converted);
    }
  });
  if (content.length === 0) return tools;
  const only = content.length === 1 ? content[0] : undefined;
  const text = only?.type === 'text' ? stringMember(only, 'text') : undefined;
  tools.push({ role: 'user', content: text ?? content });
  return tools;
}

/** A function response as a tool message: its `response` object as JSON text. */
function toolMessage(response: JsonObject, at: string, calls: Calls): JsonObject {
  const name = stringMember(response, 'name');
  if (!name) throw badRequest(`${at}.functionResponse.name: is required`, `${at}.functionResponse.name`);
  const id = stringMember(response, 'id');
  const call = calls.answer(id, name);
  if (!call) {
    throw badRequestQuoting(
      (quote) => `${at}.functionResponse: no earlier functionCall of ${quote(name)} is left to answer`,
      `${at}.functionResponse`,
    );
  }
  const result = response.response;
  const content = result === undefined ? '{}' : JSON.stringify(result);
  return { role: 'tool', tool_call_id: call.id, content };
}

/** One user part as a chat content part: text, inline media (data URI), or an image by URL. */
function userPart(part: JsonObject, at: string, warnings: Warnings): JsonObject | undefined {
  const text = stringMember(part, 'text');
  if (text !== undefined) {
    if (part.thought === true) return undefined;
    return { type: 'text', text };
  }
  const inline = recordMember(part, 'inlineData');
  if (inline) return inlinePart(inline, at);
  const file = recordMember(part, 'fileData');
  if (file) {
    const uri = stringMember(file, 'fileUri');
    const mimeType = stringMember(file, 'mimeType') ?? '';
    if (uri !== undefined && (mimeType === '' || mimeType.startsWith('image/'))) {
      return { type: 'image_url', image_url: { url: uri } };
    }
    warnings.add(`fileData parts of type ${clientText(mimeType)} are not supported on this route; dropped`);
    return undefined;
  }
  const kind = Object.keys(part).find((key) => key !== 'thoughtSignature' && key !== 'thought') ?? 'empty';
  warnings.add(`${clientText(kind)} parts are not supported on this route; dropped`);
  return undefined;
}

function inlinePart(inline: JsonObject, at: string): JsonObject {
  const mimeType = stringMember(inline, 'mimeType');
  const data = stringMember(inline, 'data');
  if (!mimeType || data === undefined) {
    throw badRequest(`${at}.inlineData: mimeType and data are required`, `${at}.inlineData`);
  }
  const uri = `data:${mimeType};base64,${data}`;
  if (mimeType.startsWith('image/')) return { type: 'image_url', image_url: { url: uri } };
  const format = AUDIO_FORMATS[mimeType];
  if (format) return { type: 'input_audio', input_audio: { data, format } };
  const filename = stringMember(inline, 'displayName') ?? `file.${mimeType.split('/')[1] ?? 'bin'}`;
  return { type: 'file', file: { file_data: uri, filename } };
}

/**
 * A model turn as an assistant message: text parts joined, `functionCall` parts as tool calls (a Gemini
 * thought signature rides in `extra_content.google`, as the Gemini adapter expects it back), and thought
 * parts that carry a signature (Claude's thinking, as this ingress answers it) as `thinking_blocks`.
 * Thought parts without a signature are another provider's reasoning text: chat cannot send it back.
 */
/** A part of a model turn and where it was in the request. */
interface ModelPart {
  part: unknown;
  path: string;
}

function modelMessage(parts: ModelPart[], calls: Calls, warnings: Warnings): JsonObject | undefined {
  let text = '';
  const toolCalls: JsonObject[] = [];
  const thinking: JsonObject[] = [];
  let thought = '';
  let native = false;
  for (const { part, path } of parts) {
    if (!isRecord(part)) throw badRequest(`${path}: must be an object`, path);
    const call = recordMember(part, 'functionCall');
    const signature = stringMember(part, 'thoughtSignature');
    if (call) toolCalls.push(toolCall(call, signature, path, calls));
    else if (part.thought === true) {
      thought += stringMember(part, 'text') ?? '';
      if (signature) {
        thinking.push({ type: 'thinking', thinking: thought, signature });
        thought = '';
      }
    } else if (typeof part.text === 'string') text += part.text;
    else if (Object.keys(part).some((key) => key !== 'thoughtSignature' && key !== 'thought')) {
      native = true;
      text += partAsText(part, warnings);
    }
  }
  if (!native && text === '' && toolCalls.length === 0 && thinking.length === 0) return undefined;
  const message: JsonObject = { role: 'assistant', content: text === '' ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (thinking.length > 0) message.thinking_blocks = thinking;
  // The turn as the client sent it, for a Gemini provider (see the Gemini adapter's `assistantParts`).
  if (native) message.extra_content = { google: { parts: parts.map(({ part }) => part) } };
  return message;
}

/**
 * A model-turn part chat has no field for, as text for providers other than Gemini (which get the turn's
 * parts as sent): the code the model ran and its result as fenced blocks; other kinds (`inlineData` …) are
 * left out for them, with a warning.
 */
function partAsText(part: JsonObject, warnings: Warnings): string {
  const code = recordMember(part, 'executableCode');
  if (code) {
    const language = (stringMember(code, 'language') ?? '').toLowerCase().replace('language_unspecified', '');
    return `\n\`\`\`${language}\n${stringMember(code, 'code') ?? ''}\n\`\`\`\n`;
  }
  const result = recordMember(part, 'codeExecutionResult');
  if (result) {
    const outcome = stringMember(result, 'outcome') ?? 'OUTCOME_OK';
    const output = stringMember(result, 'output') ?? '';
    const heading = outcome === 'OUTCOME_OK' ? 'Output' : `Output (${clientText(outcome)})`;
    return `\n${heading}:\n\`\`\`\n${output}\n\`\`\`\n`;
  }
  const kind = Object.keys(part).find((key) => key !== 'thoughtSignature' && key !== 'thought') ?? 'empty';
  warnings.add(`${clientText(kind)} parts of model turns reach Gemini providers only; not sent to others`);
  return '';
}

function toolCall(call: JsonObject, signature: string | undefined, at: string, calls: Calls): JsonObject {
  const name = stringMember(call, 'name');
  if (!name) throw badRequest(`${at}.functionCall.name: is required`, `${at}.functionCall.name`);
  const id = stringMember(call, 'id') ?? newCallId();
  calls.add({ id, name, answered: false });
  const args = isRecord(call.args) ? call.args : {};
  const result: JsonObject = {
    id,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  };
  if (signature) result.extra_content = { google: { thought_signature: signature } };
  return result;
}
