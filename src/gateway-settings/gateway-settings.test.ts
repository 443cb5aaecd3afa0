import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import {
  MAX_CUSTOM_TERM_CHARS,
  MAX_CUSTOM_TERMS,
  MAX_CUSTOM_TERMS_TOTAL_CHARS,
  MAX_PROVIDER_ID_CHARS,
  MAX_PROVIDER_IDS,
  MAX_TAG_DESCRIPTION_CHARS,
  MAX_TAG_MODELS,
  MAX_TAG_NAME_CHARS,
  MAX_TAGS,
  parseGatewaySettings,
} from './gateway-settings.js';

function rejection(value: unknown): { param: string | null; message: string; code: string | null } {
  try {
    parseGatewaySettings(value);
  } catch (error) {
    if (error instanceof GatewayError)
      return { param: error.param, message: error.message, code: error.code };
    throw error;
  }
  throw new Error('expected a rejection');
}

/** `count` tags, each a description of `chars` characters and `models` models. */
const tags = (count: number, chars: number, models: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `tag${i}`,
    description: 'x'.repeat(chars),
    models: Array.from({ length: models }, (_, m) => `acme/model-${m}`),
  }));

describe('parseGatewaySettings', () => {
  it('accepts a complete valid object and applies defaults', () => {
    const settings = parseGatewaySettings({
      zdr: true,
      order: ['a', 'b'],
      only: ['a'],
      planningTriggerScore: 0.7,
      imageGenerationModel: 'openai/gpt-image-1',
      tags: [{ name: 'code', description: 'Programming', models: ['x/y'] }],
      skills: { skillIds: ['pdf'] },
      chatHistoryCompression: { enabled: true },
      mediaOptimization: true,
      toolOptimization: { enabled: true, alwaysInclude: ['search'] },
      redact: { email: true, custom: ['Project Falcon'] },
    });
    expect(settings.chatHistoryCompression).toEqual({ enabled: true, score: 0.6 });
    expect(settings.toolOptimization).toEqual({ enabled: true, acceptScore: 0.5, alwaysInclude: ['search'] });
    expect(settings.skills).toEqual({ skillIds: ['pdf'], enableAutoSearch: false });
  });

  it('treats chatHistoryOptimization as the same setting', () => {
    expect(
      parseGatewaySettings({ chatHistoryOptimization: { enabled: true, score: 0.3 } }).chatHistoryCompression,
    ).toEqual({
      enabled: true,
      score: 0.3,
    });
  });

  it('returns defaults for a missing object', () => {
    expect(parseGatewaySettings(undefined)).toEqual({ mediaOptimization: false });
  });

  it.each([
    ['not an object', 'fast', 'gateway'],
    ['unknown member', { turbo: true }, 'gateway.turbo'],
    ['unknown nested member', { redact: { emails: true } }, 'gateway.redact.emails'],
    ['score above 1', { planningTriggerScore: 1.5 }, 'gateway.planningTriggerScore'],
    ['score below 0', { chatHistoryCompression: { score: -0.1 } }, 'gateway.chatHistoryCompression.score'],
    ['acceptScore above 1', { toolOptimization: { acceptScore: 2 } }, 'gateway.toolOptimization.acceptScore'],
    ['wrong type', { zdr: 'yes' }, 'gateway.zdr'],
    ['order not strings', { order: [1] }, 'gateway.order.0'],
    // bug: unbounded, and conflict and unknown-provider errors repeat the lists and ids in full
    [
      'too many providers in order',
      { order: Array.from({ length: MAX_PROVIDER_IDS + 1 }, (_, i) => `p${i}`) },
      'gateway.order',
    ],
    ['a provider id too long in only', { only: ['x'.repeat(MAX_PROVIDER_ID_CHARS + 1)] }, 'gateway.only.0'],
    ['tag without models', { tags: [{ name: 'a', description: 'b' }] }, 'gateway.tags.0.models'],
    [
      'tag with empty models',
      { tags: [{ name: 'a', description: 'b', models: [] }] },
      'gateway.tags.0.models',
    ],
    ['skills without ids', { skills: { enableAutoSearch: true } }, 'gateway.skills.skillIds'],
    // 20,000 tags took 250–440 ms of the event loop per MB, on every request that sent them
    ['too many tags', { tags: tags(MAX_TAGS + 1, 20, 1) }, 'gateway.tags'],
    [
      'a tag description too long',
      { tags: tags(2, MAX_TAG_DESCRIPTION_CHARS + 1, 1) },
      'gateway.tags.0.description',
    ],
    ['a tag with too many models', { tags: tags(1, 20, MAX_TAG_MODELS + 1) }, 'gateway.tags.0.models'],
    // bug: the name is judged with the description on every request (and kept as the record's `tag`), so
    // 128 names of 150,000 characters undid the description bound
    [
      'a tag name too long',
      { tags: [{ name: 'x'.repeat(MAX_TAG_NAME_CHARS + 1), description: 'd', models: ['acme/m'] }] },
      'gateway.tags.0.name',
    ],
    // bug: a 30,000-character term was a 500 from the regex compiler, the term in the log line
    [
      'a custom term too long',
      { redact: { custom: ['ok', 'x'.repeat(MAX_CUSTOM_TERM_CHARS + 1)] } },
      'gateway.redact.custom',
    ],
    [
      'too many custom terms',
      { redact: { custom: Array.from({ length: MAX_CUSTOM_TERMS + 1 }, (_, i) => `t${i}`) } },
      'gateway.redact.custom',
    ],
    [
      'custom terms too long in all',
      { redact: { custom: Array.from({ length: 11 }, () => 'x'.repeat(MAX_CUSTOM_TERMS_TOTAL_CHARS / 10)) } },
      'gateway.redact.custom',
    ],
    [
      'both alias and name',
      { chatHistoryOptimization: {}, chatHistoryCompression: {} },
      'gateway.chatHistoryOptimization',
    ],
  ])('rejects %s', (_name, value, param) => {
    const error = rejection(value);
    expect(error.code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(error.param).toBe(param);
    expect(error.message).toContain(param);
    expect(error.message).not.toContain('x'.repeat(20));
  });

  it('accepts tags up to every bound', () => {
    const settings = parseGatewaySettings({
      tags: tags(MAX_TAGS, MAX_TAG_DESCRIPTION_CHARS, MAX_TAG_MODELS).map((tag) => ({
        ...tag,
        name: 'n'.repeat(MAX_TAG_NAME_CHARS),
      })),
    });
    expect(settings.tags).toHaveLength(MAX_TAGS);
    expect(settings.tags?.[0]?.models).toHaveLength(MAX_TAG_MODELS);
  });

  it('accepts custom terms up to every bound', () => {
    const terms = Array.from({ length: 10 }, () => 'x'.repeat(MAX_CUSTOM_TERM_CHARS));
    expect(parseGatewaySettings({ redact: { custom: terms } }).redact?.custom).toHaveLength(10);
    const many = Array.from({ length: MAX_CUSTOM_TERMS }, (_, i) => `t${i}`);
    expect(parseGatewaySettings({ redact: { custom: many } }).redact?.custom).toHaveLength(MAX_CUSTOM_TERMS);
  });
});
