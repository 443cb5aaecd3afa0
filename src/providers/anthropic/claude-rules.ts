/**
 * What a Claude model accepts in a Messages request, by its name. Each generation since Claude 4.6 turned a
 * request that older models take into a 400: a final assistant message (prefill) since 4.6; non-default
 * `temperature`, `top_p` and `top_k`, and thinking budgets (`thinking.enabled` with `budget_tokens`) since
 * Opus 4.7 and Sonnet 5 (reasoning is asked for with adaptive thinking and `output_config.effort` instead);
 * a forced `tool_choice` since Fable 5.1, Opus 5.5 and Sonnet 5.5. Thinking runs by default since Claude 5,
 * and is turned off with `thinking.disabled`, with `between_tools` on Sonnet 5.5, or not at all on Fable and
 * Mythos 5, Fable 5.1 and Opus 5.5.
 * References: platform.claude.com/docs/en/models/<model>/migration-guide and what's-new pages (Opus 4.6 to
 * Haiku 5.5), checked 2026-11-30.
 */
export interface ClaudeRules {
  /** Reasoning asked for as a thinking budget (`budget`) or as adaptive thinking with an effort (`effort`). */
  reasoning: 'budget' | 'effort';
  /** Whether `output_config.effort` takes `xhigh` (Claude 4.7 and later; 4.6 stops at `high`). */
  xhigh: boolean;
  /** Whether the model thinks when the request says nothing about thinking (Claude 5 and later). */
  thinksByDefault: boolean;
  /** The `thinking.type` that turns thinking off where it runs by default; undefined where it cannot be. */
  off: 'disabled' | 'between_tools' | undefined;
  /** Whether `temperature`, `top_p` and `top_k` are accepted. */
  sampling: boolean;
  /** Whether the messages may end with an assistant turn for the model to continue. */
  prefill: boolean;
  /** Whether `tool_choice` may force a tool (`any`, or a named tool). */
  forcedTools: boolean;
}

/** Models before Claude 4.6, and any model whose name is not a Claude model's. */
export const LEGACY_CLAUDE: ClaudeRules = {
  reasoning: 'budget',
  xhigh: false,
  thinksByDefault: false,
  off: undefined,
  sampling: true,
  prefill: true,
  forcedTools: true,
};

/**
 * `claude-<family>-<major>[-<minor>]` anywhere in the name, so that dated ids (`claude-haiku-4-5-20251001`),
 * other platforms' ids (`anthropic.claude-opus-4-6-v1`, `claude-sonnet-4-5@20250929`) and routers' names
 * with a dot (`anthropic/claude-sonnet-5.5`) read the same; a date after the major version
 * (`claude-opus-4-20250514`) is not a minor version.
 */
const CLAUDE_NAME = /claude-(opus|sonnet|haiku|fable|mythos)-(?:(\d{1,2})(?:[-.](\d{1,2}))?(?!\d)|(preview))/;

/** Whether `name` reads as a Claude model id (`claude-<family>-<major>[-<minor>]`, dated or not). */
export function isClaudeModelName(name: string): boolean {
  return CLAUDE_NAME.test(name);
}

/** The rules for a model, by the name the provider knows it by. */
export function claudeRules(model: unknown): ClaudeRules {
  const match = typeof model === 'string' ? CLAUDE_NAME.exec(model) : null;
  if (!match) return LEGACY_CLAUDE;
  const family = match[1] as string;
  // `claude-mythos-preview` takes only adaptive thinking, like Opus 4.7.
  const version = match[4] ? 4.7 : Number(match[2]) + Number(match[3] ?? 0) / 10;
  if (version < 4.6) return LEGACY_CLAUDE;
  if (version < 5) {
    return {
      reasoning: 'effort',
      xhigh: version >= 4.7,
      thinksByDefault: false,
      off: undefined,
      sampling: version < 4.7,
      prefill: false,
      forcedTools: true,
    };
  }
  const latest = version >= 5.5 || (family === 'fable' && version >= 5.1);
  return {
    reasoning: 'effort',
    xhigh: true,
    thinksByDefault: true,
    off: thinkingOff(family, latest),
    sampling: false,
    prefill: false,
    // Haiku 5.5's breaking changes leave forced tool use alone.
    forcedTools: !latest || family === 'haiku',
  };
}

function thinkingOff(family: string, latest: boolean): ClaudeRules['off'] {
  if (family === 'haiku') return 'disabled';
  if (family === 'sonnet') return latest ? 'between_tools' : 'disabled';
  if (family === 'opus' && !latest) return 'disabled';
  return undefined;
}
