import { z } from 'zod';
import type { JsonObject } from '../../json/json.js';
import { parseBody } from '../shared/parse-body.js';

export const imagesRequestSchema = z.looseObject({
  prompt: z.string({ message: 'is required and must be a string' }).min(1, 'must not be empty'),
  model: z.string({ message: 'is required and must be a model slug' }).min(1),
  n: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(10, 'must be at most 10')
    .optional(),
  size: z
    .string()
    .regex(/^(auto|\d{2,5}x\d{2,5})$/, 'must be <width>x<height> or auto')
    .optional(),
  response_format: z.enum(['url', 'b64_json']).optional(),
});

export type ImagesRequest = JsonObject & z.infer<typeof imagesRequestSchema>;

/** Validates an image generation request (400 BAD_REQUEST naming the field). */
export function parseImagesRequest(body: unknown): ImagesRequest {
  return parseBody(body, imagesRequestSchema);
}
