import type { Usage } from '../accounting/usage.js';
import {
  type ChatChunkWriter,
  chatChunkWriter,
  finalizeChatCompletion,
} from '../codecs/chat/chat-response.js';
import { chatImageChunks, chatImageCompletion } from '../codecs/chat/image-answer.js';
import { type ChatRequest, parseChatRequest } from '../codecs/chat/parse-chat-request.js';
import { chatChunkText } from '../codecs/shared/streamed-text.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { Endpoint, ParsedRequest, StreamFramer, StreamScope } from '../pipeline/endpoint.js';
import { preliminaryChatPart } from '../pipeline/preliminary-parts.js';
import type { Frame } from '../pipeline/transport.js';
import type { ChatChunkPart, ChatWirePart } from '../providers/provider-adapter.js';

interface ChatParsed extends ParsedRequest {
  chat: ChatRequest;
}

/**
 * POST /v1/chat/completions, plain and streamed: the canonical shape, so the provider's answer passes
 * through with our id, model slug and usage with cost.
 */
export const chatCompletions: Endpoint<ChatParsed, ChatWirePart> = {
  kind: 'chat',
  conversation: 'chat',
  cacheName: 'chat',
  parse(body) {
    const chat = parseChatRequest(body);
    return { body: chat, chat, settings: parseGatewaySettings(chat.gateway), stream: chat.stream === true };
  },
  call: (adapter, body, call) => adapter.chat(body, call),
  answer: (result, meta) => finalizeChatCompletion(result.body, meta),
  imageAnswer: (image, meta) => chatImageCompletion(meta.genId, meta.model, image.dataUri, meta),
  stream: {
    // Runs of content deltas pass on as bytes (see providers/openai/delta-runs.ts) where the adapter has them.
    open: (adapter, body, call) => adapter.chatStreamRuns?.(body, call) ?? adapter.chatStream(body, call),
    framer: chatFramer,
    preliminary: preliminaryChatPart,
  },
};

/** `data: {chat.completion.chunk}` frames; the usage chunk (with cost) and `[DONE]` close the stream. */
function chatFramer(scope: StreamScope<ChatParsed>): StreamFramer<ChatWirePart> {
  let writer: ChatChunkWriter | undefined;
  const chunks = () => {
    writer ??= chatChunkWriter(scope.run.genId, scope.model());
    return writer;
  };
  let usage: Usage | undefined;
  const texts = scope.meter();
  const chunkFrame = (part: ChatChunkPart): Frame => {
    const pieces = chunks().pieces(part);
    if (pieces) return [`data: ${pieces[0]}`, pieces[1], '\n\n'];
    return `data: ${chunks().part(part)}\n\n`;
  };
  return {
    frame(part) {
      if (part.type === 'usage') {
        usage = part.usage;
        return '';
      }
      if (part.type === 'deltas') {
        if (texts.wants()) texts.add(part.text);
        const frames = chunks().runFrames(part);
        if (frames !== undefined) return frames;
        const pieces: (string | Uint8Array)[] = [];
        for (const single of part.parts()) {
          const frame = chunkFrame(single);
          if (typeof frame === 'string') pieces.push(frame);
          else pieces.push(...frame);
        }
        return pieces;
      }
      if (texts.wants()) texts.add(part.text ?? chatChunkText(part.chunk));
      return chunkFrame(part);
    },
    partial: () => ({ usage, text: texts }),
    end: (settle) => `data: ${chunks().usage(settle(usage))}\n\ndata: [DONE]\n\n`,
    error: (error) => `data: ${JSON.stringify(error.toBody())}\n\ndata: [DONE]\n\n`,
    image(image, meta) {
      const imageChunks = chatChunkWriter(meta.genId, meta.model);
      let frames = '';
      for (const chunk of chatImageChunks(meta.genId, meta.model, image.dataUri)) {
        frames += `data: ${imageChunks.chunk(chunk)}\n\n`;
      }
      return `${frames}data: ${imageChunks.usage(meta)}\n\ndata: [DONE]\n\n`;
    },
  };
}
