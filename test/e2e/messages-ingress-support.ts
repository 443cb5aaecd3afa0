import { createParser } from 'eventsource-parser';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../src/json/json.js';
import { TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/** What the /v1/messages e2e files share: constants of the fake upstream's answers and small helpers. */
export const GEN_ID = /^gen_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// $2 / $8 per million tokens; the fake upstream reports 12 prompt and 7 completion tokens.
export const CHAT_COST_NANO = 12 * 2000 + 7 * 8000;
export const ANTHROPIC_HEADERS = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
export const TOOL_CALLS = [
  { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
  { id: 'call_berlin', name: 'get_weather', arguments: '{"city":"Berlin","unit":"celsius"}' },
];
/** The upstream's call ids as clients see them: Anthropic's `toolu_` form (`toolu_gw_` + base64url). */
export const TOOLU_PARIS = `toolu_gw_${Buffer.from('call_paris').toString('base64url')}`;
export const TOOLU_BERLIN = `toolu_gw_${Buffer.from('call_berlin').toString('base64url')}`;
export const DIRECT = { type: 'direct' };
/** What Anthropic's published Usage requires beyond the token counts (unknown through chat). */
export const USAGE_REST = {
  cache_creation: null,
  output_tokens_details: { thinking_tokens: 0 },
  server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  inference_geo: null,
  service_tier: null,
};
export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

export function postTo(
  env: TestGateway,
  path: string,
  body: unknown,
  headers: Record<string, string> = ANTHROPIC_HEADERS,
) {
  return fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function json(response: Response): Promise<JsonObject> {
  const body: unknown = await response.json();
  if (!isRecord(body)) throw new Error('the answer is not a JSON object');
  return body;
}

/** The SSE events of a streamed answer, parsed with a real SSE parser: `event:` name and JSON data. */
export async function sseEvents(
  response: Response,
): Promise<{ name: string | undefined; data: JsonObject }[]> {
  const events: { name: string | undefined; data: JsonObject }[] = [];
  const parser = createParser({
    onEvent(message) {
      const data: unknown = JSON.parse(message.data);
      if (!isRecord(data)) throw new Error(`event data is not an object: ${message.data}`);
      events.push({ name: message.event, data });
    },
  });
  parser.feed(await response.text());
  return events;
}

export const lastUpstreamBodyOf = (env: TestGateway) => env.upstream.received.at(-1)?.body ?? {};

/** The concatenated deltas of one content block. */
export function blockText(events: { data: JsonObject }[], index: number, key: string): string {
  return events
    .filter(({ data }) => data.type === 'content_block_delta' && data.index === index)
    .map(({ data }) => stringMember(recordMember(data, 'delta'), key) ?? '')
    .join('');
}

export const hello = {
  model: 'acme/chat-large',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'Hi' }],
};
