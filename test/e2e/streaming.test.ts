import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) => testConfig(url, { server: { keepAliveIntervalMs: 40 } }));
});
afterAll(async () => env.stop());

const post = (path: string, body: Record<string, unknown>) =>
  fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('chat stream wire format', () => {
  it('sends keep-alive comments while waiting, then LF-framed data events ending in usage and [DONE]', async () => {
    // The upstream answers once two keep-alives arrived (it was a 250 ms delay against a 40 ms interval, which
    // a stalled machine could end with one): while it waits, only keep-alives can come.
    let answer = () => {};
    env.upstream.faults.push({ kind: 'hold', until: new Promise<void>((resolve) => (answer = resolve)) });
    const response = await post('/chat/completions', {
      model: 'acme/chat-large',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const genId = response.headers.get('x-generation-id');
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += decoder.decode(next.value, { stream: true });
      if (text.split(': keep-alive').length - 1 >= 2) answer();
    }
    expect(text).not.toContain('\r');
    const frames = text.split('\n\n').filter(Boolean);
    const comments = frames.filter((frame) => frame.startsWith(':'));
    expect(comments.length).toBeGreaterThanOrEqual(2);
    expect(comments.every((frame) => frame === ': keep-alive')).toBe(true);
    const firstData = frames.findIndex((frame) => frame.startsWith('data:'));
    expect(frames.slice(firstData).every((frame) => frame.startsWith('data: '))).toBe(true);
    const data = frames.slice(firstData).map((frame) => frame.slice(6));
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((json) => JSON.parse(json) as Record<string, unknown>);
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set([genId]));
    const choices = chunks.map(
      (chunk) => chunk.choices as { index: number; delta: { role?: string }; finish_reason: unknown }[],
    );
    expect(choices[0]?.[0]?.delta.role).toBe('assistant');
    expect(
      choices.slice(0, -1).every((list) => list.every((choice) => typeof choice.index === 'number')),
    ).toBe(true);
    expect(choices.at(-2)?.[0]?.finish_reason).toBe('stop');
    expect(choices.at(-1)).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({ cost: 80_000, planning_usage_details: null });
  });
});

describe('Responses stream wire format', () => {
  it('has event lines equal to type, sequence numbers from 0 and a stable id', async () => {
    const response = await post('/responses', { model: 'acme/chat-large', stream: true, input: 'hi' });
    const genId = response.headers.get('x-generation-id');
    // `: keep-alive` comments may come first (a cold first request): SSE clients skip them, and so does this.
    const frames = (await response.text()).split('\n\n').filter((frame) => frame && !frame.startsWith(':'));
    expect(frames.at(-1)).toBe('data: [DONE]');
    const events = frames.slice(0, -1).map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const event = JSON.parse(dataLine?.slice(6) ?? '{}') as {
        type: string;
        sequence_number: number;
        response?: { id: string };
      };
      expect(eventLine).toBe(`event: ${event.type}`);
      return event;
    });
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    const ids = events.flatMap((event) => (event.response ? [event.response.id] : []));
    expect(new Set(ids)).toEqual(new Set([genId]));
  });
});

describe('health figures', () => {
  it('GET /v1/models reports the measured time to first token and uptime per provider', async () => {
    const response = await fetch(`${env.baseURL}/models/acme/chat-large`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    const model = (await response.json()) as {
      providers: { provider: string; latency_p50_last_30m: number; uptime_last_30m: number }[];
      latency_p50_last_30m: number;
    };
    expect(model.providers).toHaveLength(1);
    expect(model.providers[0]?.provider).toBe('fake-cloud');
    expect(model.providers[0]?.uptime_last_30m).toBe(100);
    expect(model.providers[0]?.latency_p50_last_30m).toBeGreaterThan(0);
    expect(model.latency_p50_last_30m).toBe(model.providers[0]?.latency_p50_last_30m);
  });
});
