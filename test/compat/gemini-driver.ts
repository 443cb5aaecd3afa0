import {
  type Content,
  FunctionCallingConfigMode,
  type GenerateContentConfig,
  type GenerateContentResponse,
  GoogleGenAI,
  type Part,
  ThinkingLevel,
} from '@google/genai';
import type { IngressDriver } from './ingresses.js';
import {
  type ClientToolCall,
  JSON_SCHEMA,
  MAX_TOKENS,
  type Outcome,
  type Scenario,
  STOP,
  SYSTEM_TEXT,
  TEMPERATURE,
  TINY_PNG_BASE64,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_PARAMETERS,
  TOP_P,
  USER_TEXT,
} from './scenario.js';

/** What the parts of an answer (or of all the chunks of a stream) say, in the matrix's terms. */
interface Read {
  text: string;
  reasoning: string;
  toolCalls: ClientToolCall[];
  finish: string | undefined;
  usage: Record<string, unknown>;
  warnings: string | null;
}

const FINISH: Record<string, Outcome['finish']> = { STOP: 'stop', MAX_TOKENS: 'length' };

/** Drives the Gemini ingress (`/v1beta/models/{slug}:generateContent`) with `@google/genai`. */
export function geminiDriver(baseURL: string, key: string): IngressDriver {
  const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: baseURL.replace(/\/v1$/, '') } });

  const contents = (s: Scenario): Content[] => [
    {
      role: 'user',
      parts: [
        { text: USER_TEXT },
        ...(s.image ? [{ inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }] : []),
      ],
    },
  ];
  const config = (s: Scenario): GenerateContentConfig => ({
    ...(s.system ? { systemInstruction: SYSTEM_TEXT } : {}),
    ...(s.tools
      ? {
          tools: [
            {
              functionDeclarations: [
                { name: TOOL_NAME, description: TOOL_DESCRIPTION, parametersJsonSchema: TOOL_PARAMETERS },
              ],
            },
          ],
        }
      : {}),
    ...(s.forceTool
      ? {
          toolConfig: {
            functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [TOOL_NAME] },
          },
        }
      : {}),
    ...(s.jsonSchema ? { responseMimeType: 'application/json', responseJsonSchema: JSON_SCHEMA } : {}),
    ...(s.maxTokens ? { maxOutputTokens: MAX_TOKENS } : {}),
    ...(s.stop ? { stopSequences: STOP } : {}),
    ...(s.sampling ? { temperature: TEMPERATURE, topP: TOP_P } : {}),
    ...(s.reasoning ? { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW, includeThoughts: true } } : {}),
  });

  const outcome = (read: Read, sendToolResult: Outcome['sendToolResult']): Outcome => ({
    text: read.text,
    reasoning: read.reasoning,
    toolCalls: read.toolCalls,
    finish:
      read.finish === 'STOP' && read.toolCalls.length > 0 ? 'tool' : (FINISH[read.finish ?? ''] ?? 'other'),
    stopSequence: null,
    usage: read.usage,
    warnings: read.warnings,
    sendToolResult,
  });

  const send = async (model: string, history: Content[], s: Scenario): Promise<Outcome> => {
    const response = await genai.models.generateContent({ model, contents: history, config: config(s) });
    const read = readResponses([response]);
    const turn = response.candidates?.[0]?.content;
    return outcome(read, async (result) => {
      const call = read.toolCalls[0];
      if (!turn || !call) throw new Error('the answer has no function call to answer');
      // As Google's guide does it: the model's turn as it came, then the function's response.
      const answer: Part = {
        functionResponse: { id: call.id, name: call.name, response: JSON.parse(result) },
      };
      return send(model, [...history, turn, { role: 'user', parts: [answer] }], s);
    });
  };

  const stream = async (model: string, s: Scenario): Promise<Outcome> => {
    const chunks: GenerateContentResponse[] = [];
    const request = { model, contents: contents(s), config: config(s) };
    for await (const chunk of await genai.models.generateContentStream(request)) chunks.push(chunk);
    return outcome(readResponses(chunks), () => {
      throw new Error('the tool round trip is driven without streaming');
    });
  };

  return {
    run: (model, s) => (s.stream ? stream(model, s) : send(model, contents(s), s)),
    usageOf: (u) => ({
      promptTokenCount: u.input,
      candidatesTokenCount: u.output - u.reasoning,
      cachedContentTokenCount: u.cachedRead,
      thoughtsTokenCount: u.reasoning,
      totalTokenCount: u.input + u.output,
      cost: u.cost,
    }),
  };
}

/** The text, thoughts, function calls, last finish reason and usage of one answer or of a stream's chunks. */
function readResponses(responses: GenerateContentResponse[]): Read {
  const read: Read = { text: '', reasoning: '', toolCalls: [], finish: undefined, usage: {}, warnings: null };
  for (const response of responses) {
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        const { id, name, args } = part.functionCall;
        read.toolCalls.push({ id: id ?? '', name: name ?? '', arguments: JSON.stringify(args ?? {}) });
      } else if (part.thought) read.reasoning += part.text ?? '';
      else read.text += part.text ?? '';
    }
    read.finish = candidate?.finishReason ?? read.finish;
    if (response.usageMetadata) read.usage = { ...response.usageMetadata };
    read.warnings = response.sdkHttpResponse?.headers?.['x-gateway-warnings'] ?? null;
  }
  return read;
}
