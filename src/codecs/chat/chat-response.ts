import { arrayMember, isRecord, type JsonObject, recordMember } from '../../providers/shared/json.js';
import { chatUsageBody, type UsageMeta } from '../shared/usage-body.js';

export interface ChatMeta extends UsageMeta {
  genId: string;
  model: string;
}

/** The upstream's chat completion as the gateway answers it: our id and model slug, our usage with cost. */
export function finalizeChatCompletion(body: JsonObject, meta: ChatMeta): JsonObject {
  return {
    ...body,
    id: meta.genId,
    object: 'chat.completion',
    created: typeof body.created === 'number' ? body.created : Math.floor(Date.now() / 1000),
    model: meta.model,
    usage: chatUsageBody(meta),
  };
}

/**
 * Serialises streamed chunks with our id and model. The first chunk is checked to carry `role` in its delta
 * (some providers omit it); every choice keeps its `index`.
 */
export function chatChunkWriter(genId: string, model: string) {
  let first = true;
  let created = Math.floor(Date.now() / 1000);
  return {
    chunk(chunk: JsonObject): string {
      if (first) {
        first = false;
        if (typeof chunk.created === 'number') created = chunk.created;
        for (const choice of arrayMember(chunk, 'choices') ?? []) {
          const delta = recordMember(choice, 'delta');
          if (delta && delta.role === undefined) delta.role = 'assistant';
        }
      }
      for (const choice of arrayMember(chunk, 'choices') ?? []) {
        if (isRecord(choice) && typeof choice.index !== 'number') choice.index = 0;
      }
      chunk.id = genId;
      chunk.model = model;
      chunk.object = 'chat.completion.chunk';
      if (typeof chunk.created !== 'number') chunk.created = created;
      return JSON.stringify(chunk);
    },
    usage(meta: UsageMeta): string {
      return JSON.stringify({
        id: genId,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [],
        usage: chatUsageBody(meta),
      });
    },
  };
}
