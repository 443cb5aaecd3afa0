import type { JsonObject } from '../../json/json.js';
import { withUpstreamCallIds } from './call-id.js';
import { expandGatewayCompactions } from './compaction-item.js';

/**
 * A Responses request as a provider that serves Responses natively takes it: the gateway's own compaction
 * items as the summaries they hold, and the call ids the gateway made as the provider's own (call-id.ts).
 */
export function forNativeProvider(body: JsonObject): JsonObject {
  return withUpstreamCallIds(expandGatewayCompactions(body));
}
