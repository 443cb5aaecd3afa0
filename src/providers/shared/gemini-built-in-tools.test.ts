import { describe, expect, it } from 'vitest';
import { builtInToolWarning, isGeminiBuiltInTool } from './gemini-built-in-tools.js';

describe('Gemini built-in tools in a chat request', () => {
  it('are the tools without a type, a function or a name', () => {
    expect(isGeminiBuiltInTool({ codeExecution: {} })).toBe(true);
    expect(isGeminiBuiltInTool({ googleSearch: {} })).toBe(true);
    expect(isGeminiBuiltInTool({ type: 'function', function: { name: 'f' } })).toBe(false);
    expect(isGeminiBuiltInTool({ function: { name: 'f' } })).toBe(false);
    expect(isGeminiBuiltInTool({ name: 'f', input_schema: {} })).toBe(false);
    expect(isGeminiBuiltInTool({ type: 'web_search_20250305', name: 'web_search' })).toBe(false);
  });

  it('are named in the warning at most 64 characters long', () => {
    const long = 'z'.repeat(20_000);
    const warning = builtInToolWarning({ [long]: {} }, 'p');
    expect(warning).toMatch(/^tools\.z{40,64}… .*not supported by p; dropped$/);
    expect(warning).not.toContain('z'.repeat(65));
  });
});
