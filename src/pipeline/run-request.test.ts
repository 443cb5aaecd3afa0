import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Limiter, ReservationResult } from '../limits/limiter.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import type { GenerationRecord } from '../records/generation-record.js';
import type { RequestScorer } from '../scoring/scorer.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../test-support/start-test-gateway.js';

/**
 * The pipeline's step order and short-circuits, observed on the real gateway: every dependency a step uses
 * (scorer, limiter, provider adapter, record queue) is wrapped to log its calls in order.
 */
let gw: TestGateway;
const log: string[] = [];
const records: GenerationRecord[] = [];
/** Reservations granted and not settled yet: a request is over once its record is in and this is 0. */
let unsettled = 0;

beforeAll(async () => {
  gw = await startTestGateway((url) => ({
    ...testConfig(url),
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY], monthlyLimit: 1 }],
  }));
  const deps = gw.gateway.deps;
  const makeScorer = deps.scorers;
  deps.scorers = () => spyScorer(makeScorer());
  deps.limiter = spyLimiter(deps.limiter);
  deps.adapters = new Map([...deps.adapters].map(([id, adapter]) => [id, spyAdapter(adapter)]));
  const finish = deps.records.finish.bind(deps.records);
  deps.records.finish = (record) => {
    log.push(`record:${record.status}:${record.httpStatus}`);
    records.push(record);
    return finish(record);
  };
});
afterAll(() => gw.stop());

function spyScorer(scorer: RequestScorer): RequestScorer {
  return {
    ...scorer,
    relevance: (query, documents) => {
      log.push(`scorer.relevance:${query}`);
      return scorer.relevance(query, documents);
    },
    intentRelevance: (prompt, intents) => {
      log.push(`scorer.intentRelevance:${prompt}`);
      return scorer.intentRelevance(prompt, intents);
    },
    complexity: (prompt) => {
      log.push('scorer.complexity');
      return scorer.complexity(prompt);
    },
  };
}

function spyLimiter(limiter: Limiter): Limiter {
  return {
    hit: (key, limit) => limiter.hit(key, limit),
    reserve: (orgId, month, amount, cap) => {
      log.push('reserve');
      const count = (reservation: ReservationResult) => {
        if (reservation.ok) unsettled += 1;
        return reservation;
      };
      const reservation = limiter.reserve(orgId, month, amount, cap);
      return reservation instanceof Promise ? reservation.then(count) : count(reservation);
    },
    settle: (id, actual) => {
      log.push('settle');
      unsettled -= 1;
      return limiter.settle(id, actual);
    },
    usage: (orgId, month) => limiter.usage(orgId, month),
    ping: () => limiter.ping(),
    close: () => limiter.close(),
  };
}

function spyAdapter(adapter: ProviderAdapter): ProviderAdapter {
  const { chatStreamRuns } = adapter;
  return {
    ...adapter,
    chatStreamRuns:
      chatStreamRuns &&
      ((body, call) => {
        log.push('provider.chatStream');
        return chatStreamRuns.call(adapter, body, call);
      }),
    chat: (body, call) => {
      log.push('provider.chat');
      return adapter.chat(body, call);
    },
    chatStream: (body, call) => {
      log.push('provider.chatStream');
      return adapter.chatStream(body, call);
    },
  };
}

async function chat(body: Record<string, unknown>): Promise<Response> {
  log.length = 0;
  records.length = 0;
  unsettled = 0;
  const response = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/chat-large', ...body }),
  });
  await response.text();
  // The spend is settled once the answer ended; wait for it (bounded at 10 s, which a loaded machine does not
  // use up as it could 2 s), never for a fixed time. A reservation refused (the cap) has nothing to settle:
  // the request is over with its record (this waited out the whole bound before).
  const deadline = Date.now() + 10_000;
  const done = () => records.length > 0 && unsettled === 0;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  return response;
}

const tags = [{ name: 'greeting', description: 'say hello greeting', models: ['acme/chat-large'] }];

describe('the request pipeline', () => {
  it('runs redact → tags → reserve → dispatch → record → settle, in that order', async () => {
    const response = await chat({
      messages: [{ role: 'user', content: 'hello greeting from jane@example.com' }],
      gateway: { redact: { email: true }, tags },
    });
    expect(response.status).toBe(200);
    expect(log[0]).toMatch(/^scorer\.intentRelevance:/);
    // Tags judge the redacted prompt: the address never reaches the scorer.
    expect(log[0]).not.toContain('jane@example.com');
    expect(log.slice(1)).toEqual([
      'scorer.complexity',
      'reserve',
      'provider.chat',
      'record:success:200',
      'settle',
    ]);
    expect(records[0]).toMatchObject({ tag: 'greeting', provider: 'fake-cloud', model: 'acme/chat-large' });
  });

  it('streams through the same steps', async () => {
    const response = await chat({ messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(response.status).toBe(200);
    expect(log).toEqual(['reserve', 'provider.chatStream', 'record:success:200', 'settle']);
    expect(records[0]?.streamed).toBe(true);
    expect(records[0]?.outputTokens).toBeGreaterThan(0);
  });

  it('stops at invalid gateway settings before any scorer, reservation or provider, and still records', async () => {
    const response = await chat({ messages: [{ role: 'user', content: 'hi' }], gateway: { only: ['nope'] } });
    expect(response.status).toBe(400);
    expect(log).toEqual(['record:error:400']);
  });

  it('stops at the monthly cap before dispatch: no provider call, nothing to settle', async () => {
    const response = await chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 1_000_000_000 });
    expect(response.status).toBe(402);
    expect(log).toEqual(['reserve', 'record:error:402']);
    // No settle, and none due: the reservation was refused, so nothing was granted that a settle could end.
    expect(unsettled).toBe(0);
    expect(records[0]?.model).toBe('acme/chat-large');
  });

  it('settles the reservation when the provider fails', async () => {
    gw.upstream.faults.push({ kind: 'status', status: 400, body: { error: { message: 'bad' } } });
    const response = await chat({ messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect(log).toEqual(['reserve', 'provider.chat', 'record:error:400', 'settle']);
    expect(records[0]?.attempts).toHaveLength(1);
  });
});
