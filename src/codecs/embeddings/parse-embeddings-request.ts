import { z } from 'zod';
import type { JsonObject } from '../../json/json.js';
import { parseBody } from '../shared/parse-body.js';

export const embeddingsRequestSchema = z.looseObject({
  model: z.string({ message: 'is required and must be a model slug' }).min(1),
  input: z.union(
    [
      z.string(),
      z.array(z.string()).min(1, 'must not be empty'),
      z.array(z.number().int()).min(1, 'must not be empty'),
      z.array(z.array(z.number().int()).min(1)).min(1, 'must not be empty'),
    ],
    { message: 'is required: a string, an array of strings, or token arrays' },
  ),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
});

export type EmbeddingsRequest = JsonObject & z.infer<typeof embeddingsRequestSchema>;

/** Validates an embeddings request (400 BAD_REQUEST naming the field). */
export function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest {
  return parseBody(body, embeddingsRequestSchema);
}
