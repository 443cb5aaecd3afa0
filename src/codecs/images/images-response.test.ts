import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../../test/conformance/published-schemas.js';
import { emptyUsage } from '../../accounting/usage.js';
import { finalizeImages } from './images-response.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const META = {
  genId: 'gen_1',
  model: 'acme/image-1',
  prompt: 'a red pixel',
  usage: { ...emptyUsage(), inputTokens: 50, outputTokens: 272 },
  costNano: 7,
  planningUsage: undefined,
  planningCostNano: 0,
};
const UPSTREAM = {
  created: 1763000000,
  data: [{ b64_json: PNG }],
  usage: {
    input_tokens: 50,
    input_tokens_details: { text_tokens: 10, image_tokens: 40 },
    output_tokens: 272,
    total_tokens: 322,
  },
};

describe('finalizeImages', () => {
  it('writes b64_json as a data URI by default, as the spec says', () => {
    const answer = finalizeImages(UPSTREAM, META);
    expect(answer.data[0]?.b64_json).toBe(`data:image/png;base64,${PNG}`);
    expect(schemaErrors('openai', 'ImagesResponse', answer)).toStrictEqual([]);
  });

  it('writes plain base64 with b64Json raw, even when the upstream sent a data URI', () => {
    expect(finalizeImages(UPSTREAM, { ...META, b64Json: 'raw' }).data[0]?.b64_json).toBe(PNG);
    const dataUriUpstream = { ...UPSTREAM, data: [{ b64_json: `data:image/png;base64,${PNG}` }] };
    const answer = finalizeImages(dataUriUpstream, { ...META, b64Json: 'raw' });
    expect(answer.data[0]?.b64_json).toBe(PNG);
    expect(Buffer.from(String(answer.data[0]?.b64_json), 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(schemaErrors('openai', 'ImagesResponse', answer)).toStrictEqual([]);
  });

  it('keeps the upstream’s input token details, checked, beside our usage and cost', () => {
    const upstream = {
      ...UPSTREAM,
      usage: { ...UPSTREAM.usage, input_tokens_details: { text_tokens: 10, image_tokens: 40, bogus: -3 } },
    };
    expect(finalizeImages(upstream, META).usage).toStrictEqual({
      input_tokens: 50,
      input_tokens_details: { text_tokens: 10, image_tokens: 40 },
      output_tokens: 272,
      total_tokens: 322,
      cost: 7,
    });
    const { usage: _, ...withoutUsage } = UPSTREAM;
    expect(finalizeImages(withoutUsage, META).usage.input_tokens_details).toStrictEqual({
      text_tokens: 50,
      image_tokens: 0,
    });
  });
});
