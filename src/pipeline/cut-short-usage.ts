import { emptyUsage, type Usage } from '../accounting/usage.js';
import type { RequestKind } from '../codecs/request-kind.js';
import type { JsonObject } from '../json/json.js';
import { countRequestTokens, loadTokenCounter } from '../optimizations/count-tokens.js';
import type { StreamFramer } from './endpoint.js';
import type { Run } from './run.js';

/**
 * What a provider bills for a stream cut short (the client went away, the upstream or the gateway failed):
 * the usage it reported if it came, else the prompt and the text streamed so far, counted with the
 * tokenizer. Never nothing: the provider generated those tokens.
 */
export async function cutShortUsage(
  run: Run,
  framer: StreamFramer<unknown>,
  sent: JsonObject,
  kind: RequestKind,
): Promise<Usage> {
  const partial = framer.partial();
  if (partial.usage) return partial.usage;
  const count = await loadTokenCounter();
  const usage = {
    ...emptyUsage(),
    inputTokens: countRequestTokens(sent, kind, count),
    outputTokens: count(partial.text),
  };
  run.warnings.push(
    `the stream was cut short before the provider reported usage; billed ${usage.inputTokens} prompt and ` +
      `${usage.outputTokens} streamed tokens as counted by the gateway`,
  );
  return usage;
}
