import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { chatUsageBody, type UsageMeta } from '../shared/usage-body.js';

export interface ChatMeta extends UsageMeta {
  genId: string;
  model: string;
}

/**
 * The upstream's chat completion as the gateway answers it: our id and model slug, our usage with cost, and
 * the members OpenAI always sends that a compatible server left out (see `withRequiredMembers`).
 */
export function finalizeChatCompletion(body: JsonObject, meta: ChatMeta): JsonObject {
  return withMembers(body, {
    id: meta.genId,
    object: 'chat.completion',
    created: typeof body.created === 'number' ? body.created : Math.floor(Date.now() / 1000),
    model: meta.model,
    choices: withRequiredMembers(body.choices),
    usage: chatUsageBody(meta),
  });
}

/**
 * Choices with the members the chat completion schema requires and OpenAI always sends, as `null` where an
 * OpenAI-compatible server left them out (vLLM, Ollama and others omit `logprobs` and `message.refusal`):
 * clients generated from the schema refuse an answer without them. The same array when nothing is missing.
 */
function withRequiredMembers(choices: unknown): unknown {
  if (!Array.isArray(choices) || choices.every(hasRequiredMembers)) return choices;
  return choices.map((choice) => {
    if (!isRecord(choice) || hasRequiredMembers(choice)) return choice;
    const message = recordMember(choice, 'message');
    const filled: JsonObject = { ...choice, logprobs: choice.logprobs ?? null };
    if (message)
      filled.message = { ...message, content: message.content ?? null, refusal: message.refusal ?? null };
    return filled;
  });
}

function hasRequiredMembers(choice: unknown): boolean {
  if (!isRecord(choice) || choice.logprobs === undefined) return false;
  const message = recordMember(choice, 'message');
  return message === undefined || (message.content !== undefined && message.refusal !== undefined);
}

/**
 * Serialises streamed chunks with our id and model. The first chunk is checked to carry `role` in its delta
 * (some providers omit it); every choice gets an `index` and a `delta` object where the upstream left them out. Later chunks that arrive as the upstream's own JSON
 * text with the first chunk's id and model are rewritten as text (two substitutions) instead of being
 * serialised again: on a long stream that is most of the codec's work saved.
 */
export function chatChunkWriter(genId: string, model: string): ChatChunkWriter {
  return new ChatChunkWriter(genId, model);
}

/** One stream's chunk serialiser (see `chatChunkWriter`). */
export class ChatChunkWriter {
  readonly #genId: string;
  readonly #model: string;
  readonly #idJson: string;
  readonly #modelJson: string;
  #first = true;
  #created = Math.floor(Date.now() / 1000);
  #rewrite: ((raw: string, chunk: JsonObject) => string | undefined) | undefined;

  constructor(genId: string, model: string) {
    this.#genId = genId;
    this.#model = model;
    this.#idJson = JSON.stringify(genId);
    this.#modelJson = JSON.stringify(model);
  }

  /**
   * A content delta read from its bytes (`rewritten`), with our id and model: the new head, then the
   * upstream's bytes. Undefined before the first chunk went out (it is checked for `role`) or for others.
   */
  pieces(part: {
    rewritten?: (idJson: string, modelJson: string) => [string, Uint8Array];
  }): [string, Uint8Array] | undefined {
    return this.#first ? undefined : part.rewritten?.(this.#idJson, this.#modelJson);
  }

  /**
   * A run of content deltas read from bytes, framed with our id and model (`data: …` each). Undefined
   * before the first chunk went out: that one is checked for `role`.
   */
  runFrames(run: { frames: (idJson: string, modelJson: string) => string }): string | undefined {
    return this.#first ? undefined : run.frames(this.#idJson, this.#modelJson);
  }

  /** A part's chunk as text; `part.chunk` is read only when the raw text cannot be rewritten. */
  part(part: {
    chunk: JsonObject;
    raw?: string;
    withIds?: (idJson: string, modelJson: string) => string;
  }): string {
    if (!this.#first && part.withIds) return part.withIds(this.#idJson, this.#modelJson);
    return this.chunk(part.chunk, part.raw);
  }

  chunk(chunk: JsonObject, raw?: string): string {
    if (!this.#first && raw !== undefined && this.#rewrite) {
      const text = this.#rewrite(raw, chunk);
      if (text !== undefined) return text;
    }
    // Each choice gets an index and a delta before the first chunk's deltas get `role`.
    for (const choice of arrayMember(chunk, 'choices') ?? []) {
      if (!isRecord(choice)) continue;
      if (typeof choice.index !== 'number') choice.index = 0;
      if (!isRecord(choice.delta)) choice.delta = {};
    }
    if (this.#first) this.#takeFirst(chunk);
    chunk.id = this.#genId;
    chunk.model = this.#model;
    chunk.object = 'chat.completion.chunk';
    if (typeof chunk.created !== 'number') chunk.created = this.#created;
    return JSON.stringify(chunk);
  }

  usage(meta: UsageMeta): string {
    return JSON.stringify({
      id: this.#genId,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
      choices: [],
      usage: chatUsageBody(meta),
    });
  }

  /** The first chunk: its text sets how later ones are rewritten, its `created` is kept, its deltas get `role`. */
  #takeFirst(chunk: JsonObject): void {
    this.#rewrite = textRewriter(chunk, this.#genId, this.#model);
    this.#first = false;
    if (typeof chunk.created === 'number') this.#created = chunk.created;
    for (const choice of arrayMember(chunk, 'choices') ?? []) {
      const delta = recordMember(choice, 'delta');
      if (delta && delta.role === undefined) delta.role = 'assistant';
    }
  }
}

/**
 * Rewrites a chunk's JSON text that starts with the upstream's `{"id":"<id>",` and names the upstream model
 * once, before `"choices"` (OpenAI's key order), or answers undefined so that the caller serialises the
 * parsed object. The text passes on only when it reads as the object does: one line (an event's JSON over
 * several `data:` lines holds line feeds, which would split the frame), the same id, model and object as
 * parsed (a repeated member, which JSON.parse takes the last of, is not rewritten by a search for the first),
 * and whole choices (an index and a delta object each). Inside JSON strings quotes are escaped, so the
 * patterns cannot match text the model wrote.
 */
function textRewriter(firstChunk: JsonObject, genId: string, model: string) {
  const upstreamId = firstChunk.id;
  const upstreamModel = firstChunk.model;
  if (typeof upstreamId !== 'string' || typeof upstreamModel !== 'string') return undefined;
  const idPrefix = `{"id":${JSON.stringify(upstreamId)},`;
  const modelField = `"model":${JSON.stringify(upstreamModel)}`;
  const newIdPrefix = `{"id":${JSON.stringify(genId)},`;
  const newModelField = `"model":${JSON.stringify(model)}`;
  const idField = idPrefix.slice(1, -1);
  return (raw: string, chunk: JsonObject): string | undefined => {
    if (!raw.startsWith(idPrefix) || raw.includes('\n')) return undefined;
    if (chunk.id !== upstreamId || chunk.model !== upstreamModel || chunk.object !== 'chat.completion.chunk')
      return undefined;
    if (!raw.includes('"object":"chat.completion.chunk"')) return undefined;
    const choices = chunk.choices;
    if (!Array.isArray(choices) || !choices.every(isWholeChoice)) return undefined;
    const at = raw.indexOf(modelField, idPrefix.length);
    const choicesAt = raw.indexOf('"choices"');
    if (at < 0 || (choicesAt >= 0 && at > choicesAt)) return undefined;
    // One `"model":` and one `"id":` of the upstream's id: no repeated member the search would miss.
    if (raw.indexOf('"model":') !== at || raw.includes('"model":', at + modelField.length)) return undefined;
    if (raw.includes(idField, idPrefix.length)) return undefined;
    return newIdPrefix + raw.slice(idPrefix.length, at) + newModelField + raw.slice(at + modelField.length);
  };
}

/** A choice as it may pass on as text: an index and a delta object. */
function isWholeChoice(choice: unknown): boolean {
  return isRecord(choice) && typeof choice.index === 'number' && isRecord(choice.delta);
}
