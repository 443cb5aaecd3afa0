import { describe, expect, it } from 'vitest';
import { arrayMember, isRecord, type JsonObject } from '../json/json.js';
import { deepFreeze } from './__fixtures__/deep-freeze.js';
import { createWordOverlapScorer } from './__fixtures__/word-overlap-scorer.js';
import { optimizeMedia } from './optimize-media.js';

const screenshot = {
  type: 'image_url',
  image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==' },
};
const chart = { type: 'image_url', image_url: { url: 'https://files.example.com/q3-revenue-chart.png' } };
const voiceMemo = { type: 'input_audio', input_audio: { data: 'UklGRiQAAABXQVZFZm10', format: 'wav' } };
const imagePlaceholder = { type: 'text', text: '[image removed by the gateway]' };
const audioPlaceholder = { type: 'text', text: '[audio removed by the gateway]' };

const text = (value: string) => ({ type: 'text', text: value });

/** Earlier turns: a login-error screenshot, a revenue chart, and a voice memo with a receipt photo. */
const history: JsonObject[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: [text("Here's a screenshot of the login error on staging."), screenshot] },
  {
    role: 'assistant',
    content: 'The banner says the session token expired; clear cookies and sign in again.',
  },
  { role: 'user', content: [text('And this is our quarterly revenue chart.'), chart] },
  { role: 'assistant', content: 'Revenue grew every month, fastest in September.' },
  {
    role: 'user',
    content: [text('My voice memo from the Lisbon dinner, with the receipt.'), voiceMemo, screenshot],
  },
  { role: 'assistant', content: 'Noted: dinner in Lisbon, receipt total 84 euros.' },
];

interface MediaCase {
  name: string;
  latest: string;
  dependence?: number;
  /** Content expected for messages 1, 3 and 5. */
  expected: [unknown[], unknown[], unknown[]];
}

const cases: MediaCase[] = [
  {
    name: 'removes every earlier image and audio for a new topic',
    latest: 'New topic: write a limerick about a cat.',
    expected: [
      [text("Here's a screenshot of the login error on staging."), imagePlaceholder],
      [text('And this is our quarterly revenue chart.'), imagePlaceholder],
      [text('My voice memo from the Lisbon dinner, with the receipt.'), audioPlaceholder, imagePlaceholder],
    ],
  },
  {
    name: 'keeps earlier images when the message points back at an image',
    latest: 'In the screenshot above, what colour is the banner?',
    expected: [
      [text("Here's a screenshot of the login error on staging."), screenshot],
      [text('And this is our quarterly revenue chart.'), chart],
      [text('My voice memo from the Lisbon dinner, with the receipt.'), audioPlaceholder, screenshot],
    ],
  },
  {
    name: 'keeps the audio and removes the images when the recording is asked about',
    latest: 'Transcribe the recording I sent earlier.',
    expected: [
      [text("Here's a screenshot of the login error on staging."), imagePlaceholder],
      [text('And this is our quarterly revenue chart.'), imagePlaceholder],
      [text('My voice memo from the Lisbon dinner, with the receipt.'), voiceMemo, imagePlaceholder],
    ],
  },
  {
    name: 'keeps images named by a dependent message without a pointing word',
    latest: 'Which month does the chart show as the best?',
    dependence: 0.8,
    expected: [
      [text("Here's a screenshot of the login error on staging."), screenshot],
      [text('And this is our quarterly revenue chart.'), chart],
      [text('My voice memo from the Lisbon dinner, with the receipt.'), audioPlaceholder, screenshot],
    ],
  },
  {
    name: 'removes images named by a message that does not depend on the conversation',
    latest: 'Which chart type suits survey data best?',
    dependence: 0.2,
    expected: [
      [text("Here's a screenshot of the login error on staging."), imagePlaceholder],
      [text('And this is our quarterly revenue chart.'), imagePlaceholder],
      [text('My voice memo from the Lisbon dinner, with the receipt.'), audioPlaceholder, imagePlaceholder],
    ],
  },
  {
    name: 'keeps the media of the turn a dependent message refers to, though it names no media',
    latest: 'How much was the tip at the Lisbon dinner?',
    dependence: 0.8,
    expected: [
      [text("Here's a screenshot of the login error on staging."), imagePlaceholder],
      [text('And this is our quarterly revenue chart.'), imagePlaceholder],
      [text('My voice memo from the Lisbon dinner, with the receipt.'), voiceMemo, screenshot],
    ],
  },
];

describe('optimizeMedia (chat)', () => {
  it.each(cases)('$name', async ({ latest, dependence, expected }) => {
    const messages = [...history, { role: 'user', content: [text(latest), chart] }];
    const request = deepFreeze({ model: 'acme/vision', messages });
    const before = structuredClone(request);
    const scorer = createWordOverlapScorer(dependence === undefined ? {} : { dependence });
    const { request: result, report } = await optimizeMedia(request, 'chat', scorer);
    const sent = arrayMember(result, 'messages') ?? [];
    expect(sent.map((message) => (isRecord(message) ? message.content : undefined))).toEqual([
      history[0]?.content,
      expected[0],
      history[2]?.content,
      expected[1],
      history[4]?.content,
      expected[2],
      history[6]?.content,
      [text(latest), chart],
    ]);
    const placeholders = expected
      .flat()
      .filter((part) => part === imagePlaceholder || part === audioPlaceholder);
    expect(report.removedParts).toBe(placeholders.length);
    expect(request).toEqual(before);
  });

  it('does not call the scorer when no earlier turn carries media', async () => {
    const scorer = createWordOverlapScorer();
    const request = { messages: [{ role: 'user', content: [text('What is in this photo?'), screenshot] }] };
    const { request: result, report } = await optimizeMedia(request, 'chat', scorer);
    expect(report.removedParts).toBe(0);
    expect(result).toEqual(request);
    expect(scorer.calls).toEqual([]);
  });
});

describe('optimizeMedia (responses)', () => {
  const input = [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'Here is the architecture diagram of the billing service.' },
        { type: 'input_image', image_url: 'https://files.example.com/billing-diagram.png', detail: 'high' },
        { type: 'input_file', file_id: 'file-abc123' },
      ],
    },
    {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Three services and a queue.' }],
    },
    { role: 'user', content: [{ type: 'input_text', text: 'Take a screenshot of the dashboard.' }] },
    { type: 'function_call', call_id: 'cc_1', name: 'capture_dashboard', arguments: '{}' },
    {
      type: 'function_call_output',
      call_id: 'cc_1',
      output: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }],
    },
  ];

  it('replaces old images with input_text, keeps files and the media of the turn in progress', async () => {
    const request = deepFreeze({ model: 'acme/vision', input });
    const { request: result, report } = await optimizeMedia(request, 'responses', createWordOverlapScorer());
    expect(report.removedParts).toBe(1);
    expect(result.input).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Here is the architecture diagram of the billing service.' },
          { type: 'input_text', text: '[image removed by the gateway]' },
          { type: 'input_file', file_id: 'file-abc123' },
        ],
      },
      ...input.slice(1),
    ]);
  });
});
