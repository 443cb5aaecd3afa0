import { badRequest } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import type { Warnings } from './gemini-contents-to-chat.js';
import { slugOfPath } from './gemini-path.js';

/** Members of an `EmbedContentRequest` that OpenAI-shaped embeddings cannot carry: dropped with a warning. */
const DROPPED: Record<string, string> = {
  taskType: 'taskType is not supported on this route; ignored',
  title: 'title is not supported on this route; ignored',
};

export interface EmbedTranslation {
  /** The canonical embeddings request. */
  body: JsonObject;
  warnings: string[];
}

/**
 * `embedContent` / `batchEmbedContents` requests (validated) as one canonical embeddings request for the
 * model slug of the path: each request's text parts joined by a newline as one input, `outputDimensionality`
 * as `dimensions` (one value for the whole batch). A request naming another model than the path is a 400,
 * as at Google; so is a request without text.
 * Reference: https://ai.google.dev/api/embeddings
 */
export function embedRequestsToOpenAI(
  requests: readonly JsonObject[],
  options: { model: string; gateway: unknown; batch: boolean },
): EmbedTranslation {
  const { model, gateway } = options;
  const warnings: Warnings = new Set<string>();
  const dimensions = new Set<number>();
  const input = requests.map((request, index) => {
    const at = options.batch ? `requests.${index}.` : '';
    const named = stringMember(request, 'model');
    if (named !== undefined && slugOfPath(named) !== model) {
      throw badRequest(`${at}model: ${named} differs from the model of the path (${model})`, `${at}model`);
    }
    for (const [key, reason] of Object.entries(DROPPED)) if (request[key] !== undefined) warnings.add(reason);
    if (typeof request.outputDimensionality === 'number') dimensions.add(request.outputDimensionality);
    return textOf(recordMember(request, 'content'), `${at}content`, warnings);
  });
  if (dimensions.size > 1) {
    throw badRequest('outputDimensionality: must be the same for every request of a batch', 'requests');
  }
  const body: JsonObject = { model, input };
  const [size] = dimensions;
  if (size !== undefined) body.dimensions = size;
  if (gateway !== undefined) body.gateway = gateway;
  return { body, warnings: [...warnings] };
}

function textOf(content: JsonObject | undefined, at: string, warnings: Warnings): string {
  const texts: string[] = [];
  for (const part of arrayMember(content, 'parts') ?? []) {
    const text = stringMember(part, 'text');
    if (text !== undefined) texts.push(text);
    else if (isRecord(part))
      warnings.add('embeddings take text parts only on this route; others were dropped');
  }
  if (texts.length === 0) throw badRequest(`${at}.parts: must hold a text part`, `${at}.parts`);
  return texts.join('\n');
}

/** The vectors of a finalized (float) OpenAI embeddings list, in input order. */
export function vectorsOf(list: JsonObject): number[][] {
  const data = (arrayMember(list, 'data') ?? []).filter(isRecord);
  data.sort((a, b) => Number(a.index) - Number(b.index));
  return data.map((item) =>
    (Array.isArray(item.embedding) ? item.embedding : []).filter(
      (value): value is number => typeof value === 'number',
    ),
  );
}
