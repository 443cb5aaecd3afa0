import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { parseGatewaySettings } from './gateway-settings.js';

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
    ['tag without models', { tags: [{ name: 'a', description: 'b' }] }, 'gateway.tags.0.models'],
    [
      'tag with empty models',
      { tags: [{ name: 'a', description: 'b', models: [] }] },
      'gateway.tags.0.models',
    ],
    ['skills without ids', { skills: { enableAutoSearch: true } }, 'gateway.skills.skillIds'],
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
  });
});
