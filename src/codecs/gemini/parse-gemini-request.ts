import { z } from 'zod';
import type { JsonObject } from '../../json/json.js';
import { parseBody } from '../shared/parse-body.js';

/**
 * Validation of Gemini API requests at the edge. Only the members the gateway reads are checked; every other
 * member stays in the object untouched. Parts are checked one by one where they are translated
 * (`gemini-contents-to-chat.ts`), so that an error can name the part.
 * Reference: https://ai.google.dev/api/generate-content#request-body
 */
const part = z.looseObject({});

const content = z.looseObject({
  role: z.enum(['user', 'model', 'function'], { message: 'must be user or model' }).optional(),
  parts: z.array(part, { message: 'is required: an array of parts' }),
});

const thinkingConfig = z.looseObject({
  thinkingBudget: z.number().int('must be an integer').optional(),
  thinkingLevel: z.string().optional(),
  includeThoughts: z.boolean().optional(),
});

const generationConfig = z.looseObject({
  temperature: z.number().optional(),
  topP: z.number().optional(),
  topK: z.number().int().nonnegative().optional(),
  candidateCount: z.number().int().positive('must be greater than 0').optional(),
  maxOutputTokens: z.number().int('must be an integer').positive('must be greater than 0').optional(),
  stopSequences: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  presencePenalty: z.number().optional(),
  frequencyPenalty: z.number().optional(),
  responseMimeType: z.string().optional(),
  thinkingConfig: thinkingConfig.optional(),
});

const functionCallingConfig = z.looseObject({
  mode: z
    .enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'], {
      message: 'must be AUTO, ANY, NONE or VALIDATED',
    })
    .optional(),
  allowedFunctionNames: z.array(z.string()).optional(),
});

export const generateContentSchema = z.looseObject({
  contents: z
    .array(content, { message: 'is required: an array of contents' })
    .min(1, 'must hold at least one content'),
  systemInstruction: z
    .union([z.string(), z.looseObject({ parts: z.array(part) })], {
      message: 'must be a content with text parts',
    })
    .optional(),
  tools: z.array(z.looseObject({}), { message: 'must be an array of tools' }).optional(),
  toolConfig: z.looseObject({ functionCallingConfig: functionCallingConfig.optional() }).optional(),
  generationConfig: generationConfig.optional(),
  safetySettings: z.array(z.unknown()).optional(),
});

export const embedContentSchema = z.looseObject({
  model: z.string().optional(),
  content: z.looseObject({ parts: z.array(part).min(1, 'must hold at least one part') }),
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().positive('must be greater than 0').optional(),
});

export const batchEmbedSchema = z.looseObject({
  requests: z
    .array(embedContentSchema, { message: 'is required: an array of embedContent requests' })
    .min(1, 'must hold at least one request'),
});

export const countTokensSchema = z.looseObject({
  contents: z.array(content, { message: 'must be an array of contents' }).optional(),
  generateContentRequest: z.looseObject({}).optional(),
});

export type GenerateContentRequest = JsonObject & z.infer<typeof generateContentSchema>;
export type EmbedContentRequest = JsonObject & z.infer<typeof embedContentSchema>;
export type BatchEmbedRequest = JsonObject & z.infer<typeof batchEmbedSchema>;
export type CountTokensRequest = JsonObject & z.infer<typeof countTokensSchema>;

/** Validates a `generateContent` / `streamGenerateContent` body (400 naming the field). */
export function parseGenerateContentRequest(body: unknown): GenerateContentRequest {
  return parseBody(body, generateContentSchema);
}

/** Validates an `embedContent` body. */
export function parseEmbedContentRequest(body: unknown): EmbedContentRequest {
  return parseBody(body, embedContentSchema);
}

/** Validates a `batchEmbedContents` body. */
export function parseBatchEmbedRequest(body: unknown): BatchEmbedRequest {
  return parseBody(body, batchEmbedSchema);
}

/**
 * Validates a `countTokens` body: `contents`, or a whole `generateContentRequest` (which is then validated as
 * a generateContent body), one of them.
 */
export function parseCountTokensRequest(body: unknown): GenerateContentRequest {
  const request = parseBody(body, countTokensSchema);
  if (request.generateContentRequest) return parseGenerateContentRequest(request.generateContentRequest);
  const gateway = request.gateway === undefined ? {} : { gateway: request.gateway };
  return parseGenerateContentRequest({ contents: request.contents, ...gateway });
}
