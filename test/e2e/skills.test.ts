import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let client: OpenAI;
const skillsDir = mkdtempSync(join(tmpdir(), 'gateway-skills-'));

function writeSkill(id: string, name: string, description: string, body: string): void {
  mkdirSync(join(skillsDir, id), { recursive: true });
  writeFileSync(
    join(skillsDir, id, 'SKILL.md'),
    `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\n\n${body}\n`,
  );
}

beforeAll(async () => {
  writeSkill(
    'pdf-forms',
    'PDF forms',
    'Fill in and read PDF forms and documents',
    'SKILL-PDF: use pdftk to fill fields.',
  );
  writeSkill(
    'sql-style',
    'SQL style guide',
    'Write SQL queries for PostgreSQL databases: joins, tables, indexes',
    'SKILL-SQL: uppercase keywords, one clause per line.',
  );
  env = await startTestGateway((url) => testConfig(url, { skills: { dir: skillsDir } }));
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());

const sentText = () => JSON.stringify(env.upstream.received.at(-1)?.body);
const create = (content: string, skills: Record<string, unknown>) =>
  client.chat.completions.create({
    model: 'acme/chat-large',
    messages: [{ role: 'user', content }],
    gateway: { skills },
  } as OpenAI.ChatCompletionCreateParamsNonStreaming);

async function skillsOf(genId: string): Promise<unknown> {
  await env.gateway.deps.records.flush();
  const response = await fetch(`${env.baseURL}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  return ((await response.json()) as { data: { skills: unknown } }).data.skills;
}

describe('skills', () => {
  it('adds every listed skill to the system prompt without auto search', async () => {
    const result = await create('Hello', { skillIds: ['pdf-forms', 'sql-style'] });
    const messages = env.upstream.received.at(-1)?.body.messages as { role: string; content: string }[];
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toContain('SKILL-PDF');
    expect(messages[0]?.content).toContain('SKILL-SQL');
    expect(await skillsOf(result.id)).toBe('pdf-forms,sql-style');
  });

  it('adds only the relevant ones with enableAutoSearch', async () => {
    const result = await create('Write a SQL query joining the orders and customers tables in PostgreSQL', {
      skillIds: ['pdf-forms', 'sql-style'],
      enableAutoSearch: true,
    });
    expect(sentText()).toContain('SKILL-SQL');
    expect(sentText()).not.toContain('SKILL-PDF');
    expect(await skillsOf(result.id)).toBe('sql-style');
  });

  it('rejects an unknown skill id before anything is sent', async () => {
    const before = env.upstream.received.length;
    const error = await create('Hello', { skillIds: ['nope'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(env.upstream.received.length).toBe(before);
  });

  it('names a few unknown ids, cut short, however many and long the request lists', async () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => `nope-${i}-${'x'.repeat(1_000)}`);
    const error = await create('Hello', { skillIds: ['pdf-forms', ...ids] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const refused = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(refused.code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(refused.param).toBe('gateway.skills.skillIds');
    expect(refused.message).toContain('nope-0-xxx');
    expect(refused.message).toContain('and 1990 more');
    expect(refused.message.length).toBeLessThan(2_000);
  });

  it('reach Responses instructions, streamed too', async () => {
    const stream = client.responses.stream({
      model: 'acme/chat-large',
      input: 'Fill the PDF form',
      gateway: { skills: { skillIds: ['pdf-forms'] } },
    });
    await stream.finalResponse();
    expect(String(env.upstream.received.at(-1)?.body.instructions)).toContain('SKILL-PDF');
  });

  it('a skill added to the directory is picked up without a restart', async () => {
    writeSkill('haiku', 'Haiku', 'Write haiku poems', 'SKILL-HAIKU: 5-7-5 syllables.');
    await expect
      .poll(
        async () =>
          (
            await create('A poem', { skillIds: ['haiku'] }).then(
              () => sentText(),
              () => '',
            )
          ).includes('SKILL-HAIKU'),
        {
          timeout: 5_000,
          interval: 100,
        },
      )
      .toBe(true);
  });
});
