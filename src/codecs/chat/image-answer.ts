import type { JsonObject } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { chatUsageBody, type UsageMeta } from '../shared/usage-body.js';

/**
 * A chat completion whose assistant message carries a generated image as a data URI, both as the message
 * content and as an `images` entry (the form OpenRouter and the AI SDK read).
 */
export function chatImageCompletion(
  genId: string,
  model: string,
  dataUri: string,
  meta: UsageMeta,
): JsonObject {
  return {
    id: genId,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: dataUri,
          images: [{ type: 'image_url', image_url: { url: dataUri } }],
        },
        finish_reason: 'stop',
      },
    ],
    usage: chatUsageBody(meta),
  };
}

/** The same answer as stream chunks: role, the image, the finish (the caller adds usage and [DONE]). */
export function chatImageChunks(genId: string, model: string, dataUri: string): JsonObject[] {
  const base = { id: genId, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  return [
    withMembers(base, {
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    }),
    withMembers(base, {
      choices: [
        {
          index: 0,
          delta: { content: dataUri, images: [{ type: 'image_url', image_url: { url: dataUri } }] },
          finish_reason: null,
        },
      ],
    }),
    withMembers(base, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
  ];
}
