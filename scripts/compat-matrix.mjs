#!/usr/bin/env node
// Runs the conformance matrix (test/e2e/compatibility-matrix.test.ts) and writes docs/compatibility.md from
// its results: one table per ingress, features as rows, providers as columns. Every cell is one test, found
// by the `[cell <ingress>|<provider>|<feature>]` tag of its title. Exits non-zero when any cell is ❌.
// Usage: npm run compat
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TEST_FILE = 'test/e2e/compatibility-matrix.test.ts';
const DOC = 'docs/compatibility.md';
const COMMAND = `npx vitest run ${TEST_FILE} --reporter=json`;

const INGRESSES = {
  chat: 'Chat completions — `POST /v1/chat/completions` with the `openai` client (`chat.completions.create`)',
  responses: 'Responses — `POST /v1/responses` with the `openai` client (`responses.create`)',
  messages: 'Anthropic Messages — `POST /v1/messages` with `@anthropic-ai/sdk` (`messages.create`)',
  gemini:
    'Gemini — `POST /v1beta/models/{slug}:generateContent` with `@google/genai` (`models.generateContent`)',
};
const PROVIDERS = {
  openai: 'OpenAI (chat + Responses native)',
  'openai-compat': 'OpenAI-compatible (chat only)',
  anthropic: 'Anthropic (`api: anthropic`)',
  gemini: 'Gemini (`api: gemini`)',
};
/** What each row asserts beyond the text answer and the upstream's path, model and streaming choice. */
const ROWS = {
  text: 'the answer text; the user turn upstream in its native shape.',
  'text-stream': 'the same, streamed (`stream_options.include_usage` asked of chat upstreams).',
  system: 'the system prompt upstream (system message, `system` blocks, `systemInstruction`).',
  image: 'a PNG data URI upstream as `image_url`, `input_image`, a base64 `image` block or `inlineData`.',
  tools: 'the tool definition upstream in its format; one tool call back with whole JSON arguments.',
  'tools-stream':
    'the same, streamed: every argument fragment after its call was announced, joined in order.',
  'tool-result':
    'the call sent back with its result; the upstream gets the call and the result in its format.',
  'tool-choice': 'a forced tool upstream (`tool_choice`, `{type: tool}`, `functionCallingConfig` ANY).',
  structured:
    'the JSON schema upstream (`response_format`, `text.format`, `output_config`, `responseJsonSchema`).',
  'max-tokens': 'the limit upstream; an answer cut there ends in `length` / `incomplete` / `max_tokens`.',
  stop: 'the stop sequences upstream; Messages names the sequence that ended the answer where the API does.',
  sampling: '`temperature` and `top_p` upstream.',
  reasoning:
    'the effort upstream (`reasoning_effort`, `thinking` budget, `thinkingConfig`); the reasoning text back ' +
    '(chat `reasoning_content`, Messages `thinking`; Responses gives summaries only, not asked for).',
  'reasoning-stream': 'the same, streamed.',
  'reasoning-tools': 'a tool round trip with reasoning on; Anthropic gets the signed thinking block back.',
  usage: 'usage in the ingress’s shape (cached and cache-write tokens included) and the exact cost.',
  'usage-stream': 'the same, from the stream’s final usage.',
};
const TAG = /^\[cell ([a-z]+)\|([a-z-]+)\|([a-z-]+)\](?: \((warns|bug|n\/a)\))? (.+?)(?: — (.+))?$/;

function runTests() {
  const dir = mkdtempSync(join(tmpdir(), 'compat-matrix-'));
  const output = join(dir, 'results.json');
  try {
    const args = ['vitest', 'run', TEST_FILE, '--reporter=json', `--outputFile=${output}`];
    const run = spawnSync('npx', args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (!existsSync(output)) {
      console.error(`compat: vitest wrote no results (exit ${run.status}); see its output above`);
      process.exit(2);
    }
    return JSON.parse(readFileSync(output, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One cell from one test result. */
function cellOf(result) {
  const match = TAG.exec(result.title);
  if (!match) return undefined;
  const [, ingress, provider, feature, marker, label, why] = match;
  const base = { ingress, provider, feature, label, why, title: result.title };
  if (result.status === 'passed') {
    if (marker === 'bug') return { ...base, mark: '❌', note: `known bug (\`it.fails\`): ${why}` };
    if (marker === 'warns') return { ...base, mark: '⚠️', note: why };
    return { ...base, mark: '✅' };
  }
  if (result.status === 'failed') {
    const note =
      marker === 'bug'
        ? `the \`it.fails\` test passed: the bug looks fixed; drop its note in test/compat/cell-notes.ts`
        : `failed: ${firstLine(result.failureMessages?.[0])}`;
    return { ...base, mark: '❌', note };
  }
  if (marker === 'n/a') return { ...base, mark: '—', note: why };
  return { ...base, mark: '❌', note: `${result.status} without a reason` };
}

const firstLine = (text = '') => text.split('\n')[0].replace(/\|/g, '\\|').slice(0, 200);

function table(ingress, cells) {
  const mine = cells.filter((cell) => cell.ingress === ingress);
  if (mine.length === 0) return '';
  const providers = Object.keys(PROVIDERS).filter((id) => mine.some((cell) => cell.provider === id));
  const features = [...new Set(mine.map((cell) => cell.feature))];
  const lines = [
    `## ${INGRESSES[ingress] ?? ingress}`,
    '',
    `| feature | ${providers.map((id) => PROVIDERS[id] ?? id).join(' | ')} |`,
    `|---|${providers.map(() => ':---:').join('|')}|`,
  ];
  for (const feature of features) {
    const row = mine.filter((cell) => cell.feature === feature);
    const marks = providers.map((id) => row.find((cell) => cell.provider === id)?.mark ?? ' ');
    lines.push(`| ${row[0].label} | ${marks.join(' | ')} |`);
  }
  // One note per row and reason, naming the providers it applies to.
  const notes = new Map();
  for (const cell of mine.filter((cell) => cell.note)) {
    const key = `${cell.mark} **${cell.label}**\u0000${cell.note}`;
    notes.set(key, [...(notes.get(key) ?? []), PROVIDERS[cell.provider] ?? cell.provider]);
  }
  if (notes.size > 0) lines.push('', 'Notes:', '');
  for (const [key, providerNames] of notes) {
    const [head, note] = key.split('\u0000');
    const where = providerNames.length === providers.length ? 'every provider' : providerNames.join(', ');
    lines.push(`- ${head} × ${where}: ${note}`);
  }
  return `${lines.join('\n')}\n`;
}

function render(report, cells) {
  const count = (mark) => cells.filter((cell) => cell.mark === mark).length;
  const date = new Date().toISOString().slice(0, 10);
  return [
    '# Compatibility matrix',
    '',
    '<!-- Generated by `npm run compat` (scripts/compat-matrix.mjs); do not edit by hand. -->',
    '',
    `Generated on ${date} by \`npm run compat\`, which runs \`${COMMAND}\`: ` +
      `${report.numTotalTests} tests, ${cells.length} cells — ${count('✅')} ✅, ${count('⚠️')} ⚠️, ` +
      `${count('❌')} ❌, ${count('—')} —.`,
    '',
    'Every cell is one end-to-end test (`[cell <ingress>|<provider>|<feature>]` in its title) against one',
    'gateway in front of four providers on fake upstreams that speak each provider’s real wire format. Each test',
    'asserts what the client got (text, tool calls, finish reason, reasoning, usage with the exact cost in',
    'nano-USD) and what the upstream received in its own format (for images, tool results, tool_choice,',
    'structured output, max tokens, stop sequences, sampling and reasoning settings). A cell without a warning',
    'also asserts that the answer carries no `x-gateway-warnings` header.',
    '',
    'The fakes’ answers are scripted, so the matrix proves the gateway’s translation both ways and its',
    'accounting, not the providers’ own behaviour. The fakes return reasoning text (Anthropic',
    'thinking, Gemini thought summaries, `reasoning_content` from the OpenAI-compatible one), end on max tokens',
    'or on a stop sequence, and the Anthropic fake rejects a tool-use turn sent back without its signed thinking',
    'block, as the real API does.',
    '',
    '✅ passes · ⚠️ passes with a documented degradation, reported in `x-gateway-warnings` · ' +
      '❌ fails, or a known gateway bug (`it.fails`) · — not applicable to the ingress',
    '',
    ...Object.keys(INGRESSES).map((ingress) => table(ingress, cells)),
    '## What the rows check',
    '',
    ...Object.entries(ROWS).map(([feature, text]) => `- \`${feature}\`: ${text}`),
    '',
    'The helpers are in `test/compat/` (ingress drivers, providers and fakes, upstream checks per wire',
    'format, and `cell-notes.ts`, which lists every ⚠️, ❌ and — cell with its reason).',
    '',
  ].join('\n');
}

const report = runTests();
const results = (report.testResults ?? []).flatMap((file) => file.assertionResults ?? []);
const cells = results.map(cellOf).filter(Boolean);
const untagged = results.filter((result) => !TAG.test(result.title));
for (const result of untagged) console.error(`compat: test without a cell tag: ${result.fullName}`);
if (cells.length === 0) {
  console.error('compat: no cells in the results');
  for (const file of report.testResults ?? []) if (file.message) console.error(file.message);
  process.exit(2);
}
writeFileSync(join(ROOT, DOC), render(report, cells));
const failed = cells.filter((cell) => cell.mark === '❌');
console.log(`compat: wrote ${DOC}: ${cells.length} cells, ${failed.length} ❌`);
for (const cell of failed) console.log(`  ❌ ${cell.ingress}|${cell.provider}|${cell.feature}: ${cell.note}`);
process.exit(failed.length > 0 || untagged.length > 0 ? 1 : 0);
