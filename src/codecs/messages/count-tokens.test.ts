import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../optimizations/count-tokens.js';
import { countChatInputTokens } from './count-tokens.js';

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('countChatInputTokens', () => {
  it('frames messages as OpenAI does and counts tool calls, tools and images', async () => {
    const chat = {
      messages: [
        { role: 'system', content: 'You are a weather assistant.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is the weather in Paris today?' },
            { type: 'image_url', image_url: { url: 'https://example.com/map.png' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'toolu_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '21°C' },
      ],
      tools: [WEATHER_TOOL],
    };
    // Priming 3; system 3+1+6; user 3+1+8 + image 255; assistant 3+1 + name 2 + arguments 5; tool 3+1+2;
    // the tools' JSON 42.
    expect(countChatInputTokens(chat, await loadTokenCounter())).toBe(3 + 10 + 267 + 11 + 6 + 42);
  });
});
