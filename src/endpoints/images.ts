import { finalizeImages } from '../codecs/images/images-response.js';
import { parseImagesRequest } from '../codecs/images/parse-images-request.js';
import { internalError } from '../errors/gateway-error.js';
import { PROVIDER_MEMBERS, parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { withMembers } from '../json/with-members.js';
import type { Endpoint, ParsedRequest } from '../pipeline/endpoint.js';

interface ImagesParsed extends ParsedRequest {
  prompt: string;
}

/** POST /v1/images/generations. Of the `gateway` object it takes the provider choices (`zdr`, `order`, `only`). */
export const images: Endpoint<ImagesParsed, never> = {
  kind: 'images',
  parse(body) {
    const request = parseImagesRequest(body);
    return {
      body: request,
      settings: parseGatewaySettings(request.gateway, PROVIDER_MEMBERS),
      stream: false,
      prompt: request.prompt,
    };
  },
  call(adapter, body, call) {
    if (!adapter.generateImage) throw internalError(`Provider ${call.provider.id} cannot generate images.`);
    return adapter.generateImage(body, call);
  },
  answer: (result, meta, { request, run }) =>
    finalizeImages(
      result.body,
      withMembers(meta, {
        prompt: request.prompt,
        b64Json: run.deps.config.server.images.b64Json,
      }),
    ),
};
