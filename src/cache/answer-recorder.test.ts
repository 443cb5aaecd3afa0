import { describe, expect, it } from 'vitest';
import { openAIStreamText } from '../providers/openai/__fixtures__/chunk-text.js';
import { createOpenAIAdapter } from '../providers/openai/openai-adapter.js';
import {
  chatStreamParts,
  fakeUpstreamClient,
  okBody,
  testProvider,
} from '../test-support/fake-upstream-client.js';
import { AnswerRecorder } from './answer-recorder.js';

const provider = testProvider();

/** An OpenAI stream of `contents`, each delta with an obfuscation value. */
const stream = (contents: readonly string[]) =>
  openAIStreamText(contents.map((content) => ({ content, extra: { usage: null, obfuscation: 'ab' } })));

async function captured(text: string, pieceBytes: number, runs: boolean) {
  const recorder = new AnswerRecorder();
  const adapter = recorder.wrap(
    createOpenAIAdapter(provider, fakeUpstreamClient(() => okBody(text, pieceBytes)).client),
  );
  const parts = await chatStreamParts(adapter, provider, runs);
  return { answer: recorder.captured(), runs: parts.filter((part) => part.type === 'deltas').length };
}

describe('AnswerRecorder', () => {
  it('keeps the same answer from a stream read in runs of content deltas as from one read event by event', async () => {
    const contents = Array.from({ length: 200 }, (_, i) => (i % 13 === 5 ? ` "q\\${i}" é😀` : ` word${i}`));
    const text = stream(contents);
    const expected = await captured(text, Number.POSITIVE_INFINITY, false);
    expect(expected.runs).toBe(0);
    expect(JSON.parse(expected.answer?.bodyJson ?? '{}').choices[0].message.content).toBe(contents.join(''));
    for (const pieceBytes of [7, 500, 4_096, Number.POSITIVE_INFINITY]) {
      const got = await captured(text, pieceBytes, true);
      expect(got.answer).toStrictEqual(expected.answer);
      if (pieceBytes >= 500) expect(got.runs).toBeGreaterThan(0);
    }
  });
});
