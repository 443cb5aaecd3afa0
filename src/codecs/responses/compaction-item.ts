import { isRecord, type JsonObject, stringMember, tryParseJson } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { newId } from './chat-to-responses-result.js';

/**
 * The gateway's own `compaction` items (POST /v1/responses/compact on providers without native compaction):
 * `encrypted_content` is `gw1:` + base64url of the JSON `{"summary": "..."}`. It is an encoding, not
 * encryption: anyone holding the item can read the summary. Items of another make (OpenAI's encrypted
 * ones) are not ours to read and pass to a native upstream untouched.
 */
const PREFIX = 'gw1:';

/** The `encrypted_content` of a gateway compaction carrying `summary`. */
export function encodeCompaction(summary: string): string {
  return `${PREFIX}${Buffer.from(JSON.stringify({ summary }), 'utf8').toString('base64url')}`;
}

/** A gateway-made `compaction` output item. */
export function compactionItem(summary: string): JsonObject {
  return { id: newId('cmp'), type: 'compaction', encrypted_content: encodeCompaction(summary) };
}

/** The summary of a gateway-made compaction item, or undefined for any other item (native ones included). */
export function gatewaySummary(item: unknown): string | undefined {
  if (stringMember(item, 'type') !== 'compaction') return undefined;
  const content = stringMember(item, 'encrypted_content');
  if (content === undefined || !content.startsWith(PREFIX)) return undefined;
  const decoded = tryParseJson(Buffer.from(content.slice(PREFIX.length), 'base64url').toString('utf8'));
  return stringMember(decoded, 'summary');
}

/** The text a gateway compaction stands for in the conversation. */
export const summaryText = (summary: string): string =>
  `Summary of the earlier conversation (compacted):\n${summary}`;

/**
 * A Responses request whose gateway-made compaction items are expanded to the user message carrying their
 * summary (for a native Responses upstream, which cannot read them); other items are left as they are.
 */
export function expandGatewayCompactions(body: JsonObject): JsonObject {
  const input = body.input;
  if (!Array.isArray(input) || !input.some((item) => gatewaySummary(item) !== undefined)) return body;
  const expanded = input.map((item) => {
    const summary = gatewaySummary(item);
    if (summary === undefined) return item;
    return { type: 'message', role: 'user', content: [{ type: 'input_text', text: summaryText(summary) }] };
  });
  return withMembers(body, { input: expanded });
}

/** True when `item` is a compaction item of any make. */
export const isCompaction = (item: unknown): boolean =>
  isRecord(item) && stringMember(item, 'type') === 'compaction';
