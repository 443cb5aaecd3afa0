import type { RequestKind } from '../codecs/request-kind.js';
import { invalidGatewaySettings } from '../errors/gateway-error.js';
import { arrayMember, type JsonObject } from '../json/json.js';
import type { Scorer } from '../scoring/scorer.js';
import { latestUserPosition, type Turn, viewConversation } from './conversation-view.js';
import { type FunctionTool, readFunctionTools, toolChoiceNames } from './function-tools.js';
import { pacer } from './pace.js';
import { toolDependencies } from './tool-dependencies.js';

/**
 * `toolOptimization`: only the function tools the conversation needs reach the upstream.
 *
 * A function tool is kept when
 * - its relevance to the conversation query is at least `acceptScore` (the query is the latest user
 *   message plus the last `CONTEXT_TURNS` user or assistant turns before it, each cut to
 *   `CONTEXT_CHARS` characters, so "and tomorrow?" still finds the weather tools);
 * - it is named in `alwaysInclude`, or by `tool_choice` (a forced function, or an `allowed_tools` list);
 * - it was already called in the conversation (its calls and results stay valid: several vendors reject a
 *   tool call whose tool is not defined);
 * - a kept tool depends on it: its name appears, as a whole word, in a kept tool's description or parameter
 *   descriptions (transitively);
 * - `tool_choice` is `required`, no function tool would be kept, and it scores best (then with its own
 *   dependencies).
 * Tools that are not functions (Responses built-ins such as `web_search`, custom tools) are always kept.
 * When no tool is left, `tools`, `tool_choice` and `parallel_tool_calls` are removed together. The legacy
 * chat `functions` list is not touched.
 */

/**
 * The most function tools the optimization scores: a request with more gets 400. Scoring every tool's
 * description against the conversation took 370–490 ms of the event loop per MB of tools (20,000 tools);
 * 2,048 tools take about a tenth of that, in steps between which other clients are served.
 */
export const MAX_SCORED_TOOLS = 2_048;

export const CONTEXT_TURNS = 2;
export const CONTEXT_CHARS = 400;

export interface ToolSelectionOptions {
  acceptScore: number;
  alwaysInclude: readonly string[];
}

export interface ToolSelectionReport {
  /** Function tools sent, in their original order. */
  loadedTools: string[];
  /** Function tools removed, in their original order. */
  removedTools: string[];
}

/** The latest user message and a little context before it, for scoring tools. */
export function conversationQuery(turns: readonly Turn[]): string {
  const latest = latestUserPosition(turns);
  const end = latest >= 0 ? latest : turns.length;
  const context = turns
    .slice(0, end)
    .filter((turn) => (turn.role === 'user' || turn.role === 'assistant') && turn.text !== '')
    .slice(-CONTEXT_TURNS)
    .map((turn) => turn.text.slice(0, CONTEXT_CHARS));
  return [...context, turns[latest]?.text ?? ''].filter(Boolean).join('\n');
}

/** The kept names with everything they depend on, transitively. */
function withDependencies(kept: Iterable<string>, tools: readonly FunctionTool[]): Set<string> {
  const depends = toolDependencies(tools);
  const result = new Set<string>();
  const pending = [...kept];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (result.has(name)) continue;
    result.add(name);
    pending.push(...(depends.get(name) ?? []));
  }
  return result;
}

function bestScoring(tools: readonly FunctionTool[], scores: readonly number[]): string | undefined {
  let best: { name: string; score: number } | undefined;
  tools.forEach((tool, i) => {
    const score = scores[i] ?? 0;
    if (!best || score > best.score) best = { name: tool.name, score };
  });
  return best?.name;
}

interface Selection {
  tools: readonly FunctionTool[];
  scores: readonly number[];
  /** Functions called in the conversation. */
  called: readonly string[];
  /** Functions `tool_choice` names. */
  chosen: readonly string[];
  required: boolean;
}

function keptNames(selection: Selection, options: ToolSelectionOptions): Set<string> {
  const { tools, scores } = selection;
  const defined = new Set(tools.map((tool) => tool.name));
  const seeds = [
    ...tools.filter((_, i) => (scores[i] ?? 0) >= options.acceptScore).map((tool) => tool.name),
    ...options.alwaysInclude,
    ...selection.chosen,
    ...selection.called,
  ].filter((name) => defined.has(name));
  if (seeds.length === 0 && selection.required) {
    const best = bestScoring(tools, scores);
    if (best) seeds.push(best);
  }
  return withDependencies(seeds, tools);
}

/** The request with only the kept tools; without `tools` and its companions when none is left. */
function withTools<R extends JsonObject>(
  request: R,
  functions: readonly FunctionTool[],
  kept: ReadonlySet<string>,
): R {
  const names = new Map(functions.map((tool) => [tool.position, tool.name]));
  const tools = (arrayMember(request, 'tools') ?? []).filter((_, position) => {
    const name = names.get(position);
    return name === undefined || kept.has(name);
  });
  // `tools` is already a member: the literal only replaces it (fast on every Node).
  if (tools.length > 0) return { ...request, tools };
  const copy = { ...request };
  for (const key of ['tools', 'tool_choice', 'parallel_tool_calls']) Reflect.deleteProperty(copy, key);
  return copy;
}

/**
 * Keeps the function tools the conversation needs (see the rules above) and removes the others. Returns a
 * new request (the input is not mutated) and the names sent and removed, in their original order.
 */
export async function selectTools<R extends JsonObject>(
  request: R,
  kind: RequestKind,
  options: ToolSelectionOptions,
  scorer: Scorer,
  pace: () => Promise<void> | undefined = pacer(),
): Promise<{ request: R; report: ToolSelectionReport }> {
  const tools = readFunctionTools(request, kind);
  if (tools.length === 0) return { request: { ...request }, report: { loadedTools: [], removedTools: [] } };
  if (tools.length > MAX_SCORED_TOOLS) {
    throw invalidGatewaySettings(
      `gateway.toolOptimization scores at most ${MAX_SCORED_TOOLS} function tools; the request has ${tools.length}.`,
      'gateway.toolOptimization',
    );
  }
  const { turns } = viewConversation(request, kind);
  // A turn of the event loop between the steps (see `pace.ts`).
  await pace();
  const scores = await scorer.relevance(
    conversationQuery(turns),
    tools.map((tool) => tool.text),
  );
  const called = turns.flatMap((turn) => turn.calledTools);
  const chosen = toolChoiceNames(request.tool_choice, kind);
  const required = request.tool_choice === 'required';
  await pace();
  const kept = keptNames({ tools, scores, called, chosen, required }, options);
  const names = tools.map((tool) => tool.name);
  return {
    request: withTools(request, tools, kept),
    report: {
      loadedTools: names.filter((name) => kept.has(name)),
      removedTools: names.filter((name) => !kept.has(name)),
    },
  };
}
