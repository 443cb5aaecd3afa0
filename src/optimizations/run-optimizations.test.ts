import { describe, expect, it, vi } from 'vitest';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { arrayMember, type JsonObject } from '../json/json.js';
import { deepFreeze } from './__fixtures__/deep-freeze.js';
import { chatToolCatalog, responsesToolCatalog } from './__fixtures__/tool-catalog.js';
import { createWordOverlapScorer } from './__fixtures__/word-overlap-scorer.js';
import { countRequestTokens, loadTokenCounter } from './count-tokens.js';
import { removedPercentage, runOptimizations } from './run-optimizations.js';

const screenshot = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
const longLog = Array.from({ length: 80 }, (_, n) => `12:00:${n} INFO request ${n} served in 12 ms\n`).join(
  '',
);

/** A support conversation: a screenshot, a long log, a weather aside, then an unrelated new request. */
const conversation: JsonObject[] = [
  { role: 'system', content: 'You are the support assistant of Acme Cloud.' },
  { role: 'user', content: [{ type: 'text', text: 'The dashboard shows this error:' }, screenshot] },
  { role: 'assistant', content: 'That is a 502 from the load balancer. Can you share the access log?' },
  { role: 'user', content: `Here is the access log:\n${longLog}` },
  {
    role: 'assistant',
    content: 'The log looks healthy; the 502 came from a deploy that has since finished.',
  },
  { role: 'user', content: 'New topic: email the Q3 invoice to Dana from finance.' },
];

const chatRequest = deepFreeze({
  model: 'acme/support',
  messages: conversation,
  tools: chatToolCatalog,
  tool_choice: 'auto',
  user: 'customer-42',
});

const allOn: GatewaySettings = {
  mediaOptimization: true,
  chatHistoryCompression: { enabled: true, score: 0.6 },
  toolOptimization: { enabled: true, acceptScore: 0.5, alwaysInclude: [] },
};

describe('runOptimizations', () => {
  it('does not load the tokenizer nor call the scorer when no optimization is enabled', async () => {
    const loadCounter = vi.fn(loadTokenCounter);
    const scorer = createWordOverlapScorer();
    const settings: GatewaySettings = {
      mediaOptimization: false,
      chatHistoryCompression: { enabled: false, score: 0.6 },
      toolOptimization: { enabled: false, acceptScore: 0.5, alwaysInclude: [] },
    };
    const { request, report } = await runOptimizations(chatRequest, 'chat', settings, scorer, {
      loadCounter,
    });
    expect(loadCounter).not.toHaveBeenCalled();
    expect(scorer.calls).toEqual([]);
    expect(request).toEqual(chatRequest);
    expect(report.optimizationPercentage).toBe(0);
    expect(report.loadedTools).toHaveLength(chatToolCatalog.length);
    expect(report.loadedTools[0]).toBe('get_current_weather');
  });

  it('runs media, then compression, then tool selection, and measures with the real tokenizer', async () => {
    const before = structuredClone(chatRequest);
    const scorer = createWordOverlapScorer();
    const { request, report } = await runOptimizations(chatRequest, 'chat', allOn, scorer);
    expect(scorer.calls.map((call) => call.method)).toEqual([
      'contextDependence',
      'contextDependence',
      'relevance',
      'relevance',
    ]);
    expect(report.details.media).toEqual({ removedParts: 1 });
    expect(report.details.compression).toEqual({ droppedTurns: 4, shortenedTurns: 0, dependence: 0.1 });
    expect(report.loadedTools).toEqual([
      'send_email',
      'search_emails',
      'search_contacts',
      'crm_get_account',
      'create_invoice',
    ]);
    expect(arrayMember(request, 'messages')).toEqual([conversation[0], conversation[5]]);
    expect(request).toMatchObject({ model: 'acme/support', user: 'customer-42', tool_choice: 'auto' });

    const count = await loadTokenCounter();
    const tokensBefore = countRequestTokens(chatRequest, 'chat', count);
    const tokensAfter = countRequestTokens(request, 'chat', count);
    expect(report.details.tokens).toEqual({ before: tokensBefore, after: tokensAfter });
    expect(report.optimizationPercentage).toBe(
      Math.round((10_000 * (tokensBefore - tokensAfter)) / tokensBefore) / 100,
    );
    expect(report.optimizationPercentage).toBeGreaterThan(50);
    expect(chatRequest).toEqual(before);
  });

  it('lists the tools sent when only compression runs, and reports only what ran', async () => {
    const settings: GatewaySettings = {
      mediaOptimization: false,
      chatHistoryCompression: { enabled: true, score: 0.6 },
    };
    const { report } = await runOptimizations(chatRequest, 'chat', settings, createWordOverlapScorer());
    expect(report.loadedTools).toHaveLength(chatToolCatalog.length);
    expect(Object.keys(report.details).sort()).toEqual(['compression', 'tokens']);
    expect(report.optimizationPercentage).toBeGreaterThan(0);
  });

  it('reports 0 when the enabled optimizations find nothing to remove', async () => {
    const request = deepFreeze({ model: 'acme/support', input: 'Fix the error in the file you sent.' });
    const { report } = await runOptimizations(request, 'responses', allOn, createWordOverlapScorer());
    expect(report).toEqual({ optimizationPercentage: 0, loadedTools: [], details: expect.any(Object) });
    expect(report.details.tokens?.before).toBeGreaterThan(0);
  });

  it('optimizes a Responses request and keeps its built-in tools', async () => {
    const request = deepFreeze({
      model: 'acme/support',
      instructions: 'You are the support assistant of Acme Cloud.',
      input: [
        { role: 'user', content: 'What is the weather in Lisbon?' },
        {
          type: 'function_call',
          call_id: 'fc_1',
          name: 'get_current_weather',
          arguments: '{"location":"Lisbon"}',
        },
        { type: 'function_call_output', call_id: 'fc_1', output: '{"temperature":24,"conditions":"sunny"}' },
        { role: 'user', content: 'New topic: convert 250 euros to Japanese yen.' },
      ],
      tools: [{ type: 'web_search' }, ...responsesToolCatalog()],
    });
    const { request: result, report } = await runOptimizations(
      request,
      'responses',
      allOn,
      createWordOverlapScorer(),
    );
    expect(result.input).toEqual([
      { role: 'user', content: 'New topic: convert 250 euros to Japanese yen.' },
    ]);
    expect(report.loadedTools).toEqual(['convert_currency']);
    expect(arrayMember(result, 'tools')?.[0]).toEqual({ type: 'web_search' });
    expect(report.optimizationPercentage).toBeGreaterThan(80);
  });
});

describe('removedPercentage', () => {
  it.each([
    [1000, 750, 25],
    [3, 2, 33.33],
    [3, 1, 66.67],
    [500, 500, 0],
    [0, 0, 0],
  ])('%i → %i tokens is %d %', (before, after, expected) => {
    expect(removedPercentage(before, after)).toBe(expected);
  });
});
