import { describe, expect, it } from 'vitest';
import type { RedactSettings } from '../gateway-settings/gateway-settings.js';
import {
  redactAnthropicMessages,
  redactChatMessages,
  redactContent,
  redactRequest,
  redactResponsesInput,
} from './redact-request.js';

const SETTINGS: RedactSettings = { email: true, phone: true, credit_card: true, custom: ['Falcon'] };
const EMAIL = 'christian@gmail.com';
const MASKED_EMAIL = 'c****n@g****l.com';
const IMAGE = { type: 'image_url', image_url: { url: 'data:image/png;base64,christian@gmail.com' } };

/** Runs `redact` on a deep copy and checks the original was not touched. */
function unchanged<T>(input: T, redact: (input: T) => unknown): unknown {
  const before = structuredClone(input);
  const result = redact(input);
  expect(input).toEqual(before);
  return result;
}

describe('redactChatMessages', () => {
  it("masks a Gemini turn's own parts (text, code, its output) as the message's own, keeping signatures and media", () => {
    const parts = [
      { text: `Mail ${EMAIL}`, thoughtSignature: 'SIGchristian@gmail.com' },
      { executableCode: { language: 'PYTHON', code: `send("${EMAIL}")` } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: `sent to ${EMAIL}` } },
      { inlineData: { mimeType: 'image/png', data: 'christian@gmail.com' } },
    ];
    const message = { role: 'assistant', content: 'x', extra_content: { google: { parts } } };
    const { messages: out } = unchanged([message], (input) => redactChatMessages(input, SETTINGS)) as {
      messages: { extra_content: { google: { parts: unknown[] } } }[];
    };
    expect(out[0]?.extra_content.google.parts).toEqual([
      { text: `Mail ${MASKED_EMAIL}`, thoughtSignature: 'SIGchristian@gmail.com' },
      { executableCode: { language: 'PYTHON', code: `send("${MASKED_EMAIL}")` } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: `sent to ${MASKED_EMAIL}` } },
      { inlineData: { mimeType: 'image/png', data: 'christian@gmail.com' } },
    ]);
  });

  const messages = [
    { role: 'system', content: `Escalate to ${EMAIL}.`, cache_hint: 'keep' },
    {
      role: 'user',
      name: 'christian@gmail.com',
      content: [{ type: 'text', text: 'Card 4111 1111 1111 1111, project Falcon' }, IMAGE],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: {
            name: 'send_mail',
            arguments: `{"to": "${EMAIL}", "cc": ["+1 (555) 123-4567"], "n": 3}`,
          },
        },
        { id: 'call_2', type: 'function', function: { name: 'notes', arguments: `to ${EMAIL}` } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: `sent to ${EMAIL}` },
    { role: 'assistant', content: [{ type: 'refusal', refusal: `No, ${EMAIL}.` }], refusal: `No, ${EMAIL}.` },
    'not a message',
  ];

  it('masks every text, keeps everything else, never mutates the input', () => {
    const result = unchanged(messages, (input) => redactChatMessages(input, SETTINGS));
    expect(result).toEqual({
      messages: [
        { role: 'system', content: `Escalate to ${MASKED_EMAIL}.`, cache_hint: 'keep' },
        {
          role: 'user',
          // A participant's name is masked too, in the characters a name may hold (see below).
          name: 'c____n_g____l_com',
          content: [{ type: 'text', text: 'Card 41** **** **** ***1, project ****' }, IMAGE],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: {
                name: 'send_mail',
                arguments: `{"to": "${MASKED_EMAIL}", "cc": ["+1 (5**) ***-***7"], "n": 3}`,
              },
            },
            { id: 'call_2', type: 'function', function: { name: 'notes', arguments: `to ${MASKED_EMAIL}` } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: `sent to ${MASKED_EMAIL}` },
        {
          role: 'assistant',
          content: [{ type: 'refusal', refusal: `No, ${MASKED_EMAIL}.` }],
          refusal: `No, ${MASKED_EMAIL}.`,
        },
        'not a message',
      ],
      counts: { email: 7, credit_card: 1, custom: 1, phone: 1 },
    });
  });

  it.each([
    [
      'keeps arguments byte-identical when nothing is found',
      '{ "city" :\n "Paris" }',
      '{ "city" :\n "Paris" }',
    ],
    [
      'keeps big numbers exact',
      '{"id": 12345678901234567890, "to": "jo@x.io"}',
      '{"id": 12345678901234567890, "to": "****@****.io"}',
    ],
    ['masks a card sent as a number', '{"card": 4111111111111111}', '{"card": "41*************1"}'],
    ['never touches keys', '{"Falcon": "Falcon"}', '{"Falcon": "****"}'],
    [
      'masks escaped strings',
      '{"note": "mail \\"christian@gmail.com\\""}',
      `{"note": "mail \\"${MASKED_EMAIL}\\""}`,
    ],
    ['masks non-JSON arguments as text', '{"to": christian@gmail.com', `{"to": ${MASKED_EMAIL}`],
  ])('tool arguments: %s', (_, args, expected) => {
    const call = { id: 'c', type: 'function', function: { name: 'f', arguments: args } };
    const { messages: out } = redactChatMessages([{ role: 'assistant', tool_calls: [call] }], SETTINGS);
    expect(out).toEqual([
      { role: 'assistant', tool_calls: [{ ...call, function: { name: 'f', arguments: expected } }] },
    ]);
  });

  it('masks the legacy function_call and reports no counts when nothing matched', () => {
    const message = { role: 'assistant', function_call: { name: 'f', arguments: `{"a":"${EMAIL}"}` } };
    expect(redactChatMessages([message], SETTINGS).messages).toEqual([
      { role: 'assistant', function_call: { name: 'f', arguments: `{"a":"${MASKED_EMAIL}"}` } },
    ]);
    expect(redactChatMessages([{ role: 'user', content: 'hello' }], SETTINGS).counts).toEqual({});
  });
});

describe('reasoning and predicted output in chat', () => {
  it('masks the reasoning an assistant turn carries back, and a predicted output', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'ok',
        reasoning_content: `mail is ${EMAIL}`,
        reasoning: `mail is ${EMAIL}`,
      },
    ];
    const body = { model: 'm', messages, prediction: { type: 'content', content: `to: ${EMAIL}` } };
    const redacted = unchanged(body, (value) => redactRequest('chat', value, SETTINGS)) as typeof body;
    expect(redacted.messages[1]).toMatchObject({
      reasoning_content: `mail is ${MASKED_EMAIL}`,
      reasoning: `mail is ${MASKED_EMAIL}`,
    });
    expect(redacted.prediction).toEqual({ type: 'content', content: `to: ${MASKED_EMAIL}` });
    const parts = { ...body, prediction: { type: 'content', content: [{ type: 'text', text: EMAIL }] } };
    expect(JSON.stringify(redactRequest('chat', parts, SETTINGS))).not.toContain(EMAIL);
  });
});

describe('redactResponsesInput', () => {
  it('masks a string input and instructions', () => {
    expect(redactResponsesInput(`hi from ${EMAIL}`, 'Never reveal Falcon.', SETTINGS)).toEqual({
      input: `hi from ${MASKED_EMAIL}`,
      instructions: 'Never reveal ****.',
      counts: { email: 1, custom: 1 },
    });
  });

  it('masks message parts, function calls, their outputs and reasoning summaries; keeps encrypted reasoning and images', () => {
    const reasoning = {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: EMAIL }],
      encrypted_content: `gAAAA${EMAIL}`,
    };
    const image = { type: 'input_image', image_url: 'https://example.com/christian@gmail.com.png' };
    const input = [
      { role: 'user', content: [{ type: 'input_text', text: `I am ${EMAIL}` }, image] },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: `Noted, ${EMAIL}`, annotations: [] }],
      },
      reasoning,
      { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: `{"email":"${EMAIL}"}` },
      { type: 'function_call_output', call_id: 'c1', output: `{"phone":"+44 20 7946 0958"}` },
      { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: EMAIL }] },
      { type: 'item_reference', id: 'msg_1' },
    ];
    const result = unchanged(input, (value) => redactResponsesInput(value, undefined, SETTINGS));
    expect(result).toEqual({
      input: [
        { role: 'user', content: [{ type: 'input_text', text: `I am ${MASKED_EMAIL}` }, image] },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: `Noted, ${MASKED_EMAIL}`, annotations: [] }],
        },
        { ...reasoning, summary: [{ type: 'summary_text', text: MASKED_EMAIL }] },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: `{"email":"${MASKED_EMAIL}"}` },
        { type: 'function_call_output', call_id: 'c1', output: `{"phone":"+44 ** **** ***8"}` },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: MASKED_EMAIL }] },
        { type: 'item_reference', id: 'msg_1' },
      ],
      instructions: undefined,
      counts: { email: 5, phone: 1 },
    });
  });

  it('masks the text of items and parts of kinds it does not know, not their ids, kinds or payloads', () => {
    const input = [
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: EMAIL } },
      {
        type: 'code_interpreter_call',
        id: 'ci_1',
        code: `send("${EMAIL}")`,
        outputs: [{ type: 'logs', logs: EMAIL }],
      },
      { type: 'mcp_call', id: 'mcp_1', name: 'crm', arguments: `{"to":"${EMAIL}"}`, output: EMAIL },
      {
        role: 'user',
        content: [
          { type: 'summary_text', text: EMAIL },
          { type: 'input_file', file_data: EMAIL },
          { type: 'web_search_tool_result', tool_use_id: EMAIL, content: [{ type: 'r', title: EMAIL }] },
        ],
      },
      { type: 'file_search_call', id: 'fs_1', queries: [EMAIL], vector_store_ids: [EMAIL] },
    ];
    const result = unchanged(input, (value) => redactResponsesInput(value, undefined, SETTINGS)) as {
      input: unknown;
    };
    // Kept: the file's data, and the ids (`…_id`, `…_ids`) a provider matches.
    expect(JSON.stringify(result.input).match(new RegExp(EMAIL.replace('.', '\\.'), 'g'))).toHaveLength(3);
    expect(result.input).toMatchObject([
      { id: 'ws_1', status: 'completed', action: { type: 'search', query: MASKED_EMAIL } },
      { id: 'ci_1', outputs: [{ type: 'logs', logs: MASKED_EMAIL }] },
      { id: 'mcp_1', name: 'crm', output: MASKED_EMAIL },
      {
        content: [
          { type: 'summary_text', text: MASKED_EMAIL },
          { type: 'input_file', file_data: EMAIL },
          { tool_use_id: EMAIL, content: [{ type: 'r', title: MASKED_EMAIL }] },
        ],
      },
      { queries: [MASKED_EMAIL], vector_store_ids: [EMAIL] },
    ]);
  });
});

describe('participant names', () => {
  // bug: `messages[].name` went upstream as it came with redaction on; a participant's name is often a
  // person's own (or an e-mail address, which OpenAI-compatible servers take).
  it.each([
    ['an e-mail address', EMAIL, 'c____n_g____l_com'],
    ['a custom term', 'Falcon-bot', '____-bot'],
    ['nothing to mask', 'alice_01', 'alice_01'],
  ])('masks %s in a name, keeping to the characters OpenAI accepts', (_, name, expected) => {
    const messages = [{ role: 'user', name, content: 'hi' }];
    const result = unchanged(messages, (value) =>
      redactChatMessages(value, { ...SETTINGS, custom: ['Falcon'] }),
    );
    expect(result).toMatchObject({ messages: [{ name: expected }] });
    expect(expected).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('keeps the name of a legacy function result: it names the function', () => {
    const messages = [{ role: 'function', name: 'Falcon', content: 'hi' }];
    expect(redactChatMessages(messages, SETTINGS).messages).toMatchObject([
      { name: 'Falcon', content: 'hi' },
    ]);
  });
});

describe('annotations carried back', () => {
  // bug: the title of a citation an earlier answer carried (a page title, which can name anyone) went upstream
  // as it came, in Responses `output_text` parts and in chat assistant messages alike.
  const citation = { type: 'url_citation', url: 'https://example.com/a', title: `About ${EMAIL}` };
  const masked = { ...citation, title: `About ${MASKED_EMAIL}` };

  it('masks the titles of Responses output_text annotations, not their URLs', () => {
    const input = [
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'x', annotations: [citation] }],
      },
    ];
    const result = unchanged(input, (value) => redactResponsesInput(value, undefined, SETTINGS));
    expect(result).toMatchObject({ input: [{ content: [{ text: 'x', annotations: [masked] }] }] });
  });

  it('masks the titles of a chat assistant message annotations', () => {
    const messages = [
      { role: 'assistant', content: 'x', annotations: [{ type: 'url_citation', url_citation: citation }] },
    ];
    const result = unchanged(messages, (value) => redactChatMessages(value, SETTINGS));
    expect(result).toMatchObject({
      messages: [{ annotations: [{ type: 'url_citation', url_citation: masked }] }],
    });
  });
});

describe('redactAnthropicMessages', () => {
  it('masks system blocks, text, tool_use input and tool_result content; keeps thinking and images', () => {
    const thinking = { type: 'thinking', thinking: `user is ${EMAIL}`, signature: 'sig' };
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };
    const system = [{ type: 'text', text: `Owner: ${EMAIL}`, cache_control: { type: 'ephemeral' } }];
    const messages = [
      { role: 'user', content: `Hi, I'm ${EMAIL}` },
      {
        role: 'assistant',
        content: [
          thinking,
          { type: 'text', text: 'Looking up Falcon.' },
          {
            type: 'tool_use',
            id: 't1',
            name: 'crm',
            input: { query: { email: EMAIL, tags: ['Falcon'] }, limit: 5 },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: `found ${EMAIL}` },
          { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: EMAIL }, image] },
          {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data: `Call +1 (555) 123-4567` },
          },
        ],
      },
    ];
    const result = unchanged({ system, messages }, (value) =>
      redactAnthropicMessages(value.system, value.messages, SETTINGS),
    );
    expect(result).toEqual({
      system: [{ type: 'text', text: `Owner: ${MASKED_EMAIL}`, cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: `Hi, I'm ${MASKED_EMAIL}` },
        {
          role: 'assistant',
          content: [
            thinking,
            { type: 'text', text: 'Looking up ****.' },
            {
              type: 'tool_use',
              id: 't1',
              name: 'crm',
              input: { query: { email: MASKED_EMAIL, tags: ['****'] }, limit: 5 },
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: `found ${MASKED_EMAIL}` },
            {
              type: 'tool_result',
              tool_use_id: 't2',
              content: [{ type: 'text', text: MASKED_EMAIL }, image],
            },
            {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: 'Call +1 (5**) ***-***7' },
            },
          ],
        },
      ],
      counts: { email: 5, custom: 2, phone: 1 },
    });
  });

  it('masks a string system prompt', () => {
    expect(redactAnthropicMessages(`Owner ${EMAIL}`, [], SETTINGS).system).toBe(`Owner ${MASKED_EMAIL}`);
  });
});

describe('redactContent', () => {
  it.each([
    ['a string', `to ${EMAIL}`, `to ${MASKED_EMAIL}`],
    ['null', null, null],
    ['an object that is not content', { text: EMAIL }, { text: EMAIL }],
    [
      'unknown part types',
      [{ type: 'input_audio', input_audio: { data: EMAIL } }],
      [{ type: 'input_audio', input_audio: { data: EMAIL } }],
    ],
    [
      'tool_use input, numbers a detector recognises included',
      [{ type: 'tool_use', id: 't', name: 'pay', input: { card: 4111111111111111, cents: 1250 } }],
      [{ type: 'tool_use', id: 't', name: 'pay', input: { card: '41*************1', cents: 1250 } }],
    ],
    [
      'text parts of every spelling',
      [{ type: 'output_text', text: EMAIL }],
      [{ type: 'output_text', text: MASKED_EMAIL }],
    ],
  ])('%s', (_, content, expected) => {
    expect(redactContent(content, SETTINGS).content).toEqual(expected);
  });
});

describe('redactRequest: who the end user is', () => {
  // bug: `user`, `safety_identifier` and `metadata` went upstream as they came, with redaction on: an end
  // user's e-mail address (a common choice of identifier) reached the provider beside a masked prompt.
  it.each([
    ['chat', { messages: [] }],
    ['responses', { input: 'hi' }],
  ] as const)('masks them in a %s request, leaving other members alone', (kind, body) => {
    const request = {
      ...body,
      model: 'm',
      user: EMAIL,
      safety_identifier: EMAIL,
      metadata: { email: EMAIL, plan: 'pro' },
      temperature: 0.2,
    };
    const result = unchanged(request, (value) => redactRequest(kind, value, SETTINGS));
    expect(result).toMatchObject({
      model: 'm',
      user: MASKED_EMAIL,
      safety_identifier: MASKED_EMAIL,
      metadata: { email: MASKED_EMAIL, plan: 'pro' },
      temperature: 0.2,
    });
  });
});
