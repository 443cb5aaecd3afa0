import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { request } from '../../src/test-support/crash-burst.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { type SpawnedGateway, spawnGateway } from '../../src/test-support/spawn-gateway.js';
import { TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

const running: SpawnedGateway[] = [];
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  for (const gateway of running.splice(0)) gateway.child.kill('SIGKILL');
  await upstream?.close();
});

/** A gateway on a fresh SQLite file with a 4 KiB journal segment (a new one every few records). */
async function gatewayWithJournal() {
  upstream = await startFakeOpenAIUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-journal-disk-'));
  const journalDir = join(dir, 'journal');
  const configPath = join(dir, 'gateway.yaml');
  const config = testConfig(upstream.url, { records: { journalDir, journalSegmentBytes: 4_096 } });
  writeFileSync(configPath, stringify(config));
  const env = { GATEWAY_CONFIG: configPath, DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}` };
  const gateway = await spawnGateway(env);
  running.push(gateway);
  return { gateway, journalDir, env };
}

/** 30 requests one after the other, streamed and not: enough records to fill several segments. */
async function thirtyRequests(url: string) {
  const outcomes = [];
  for (let i = 0; i < 30; i += 1) outcomes.push(await request(url, i % 2 === 0));
  expect(outcomes.filter((outcome) => outcome.completed)).toHaveLength(30);
  return outcomes;
}

async function recordStatus(url: string, genId: string): Promise<number> {
  const response = await fetch(`${url}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  return response.status;
}

// Bug: with its journal directory removed under it (or a disk that refused a new file), the gateway's next
// journal segment could not be created, the exception was uncaught, and the process ended with every
// request in flight. Nothing told an operator that records were no longer safe from a crash.
describe('the journal directory removed while the gateway runs', () => {
  it('is made again: serving goes on, and records journaled after it survive a SIGKILL', async () => {
    const { gateway, journalDir, env } = await gatewayWithJournal();
    rmSync(journalDir, { recursive: true, force: true });
    const outcomes = await thirtyRequests(gateway.url);
    expect(gateway.output()).toMatch(
      /record journal: directory .* was removed while the gateway ran; made again/,
    );
    // The database goes with the killed process, so the next start can find the last record only in the
    // journal (the segment it was written to is the current one, which is kept).
    const last = outcomes.at(-1)?.genId ?? '';
    gateway.child.kill('SIGKILL');
    await gateway.exited;
    const database = env.DATABASE_URL.slice('sqlite:'.length);
    for (const file of [database, `${database}-wal`, `${database}-shm`]) rmSync(file, { force: true });
    const second = await spawnGateway(env);
    running.push(second);
    await expect.poll(() => recordStatus(second.url, last), { timeout: 5_000 }).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 60_000);

  it('replaced by a file: serving goes on, readiness and /metrics say the journal cannot write', async () => {
    const { gateway, journalDir } = await gatewayWithJournal();
    rmSync(journalDir, { recursive: true, force: true });
    writeFileSync(journalDir, 'not a directory');
    const outcomes = await thirtyRequests(gateway.url);
    expect(gateway.output()).toMatch(/record journal .* unavailable: ENOTDIR/);
    await expect
      .poll(() => recordStatus(gateway.url, outcomes.at(-1)?.genId ?? ''), { timeout: 5_000 })
      .toBe(200);
    // Said where an operator looks: readiness (a load balancer moves traffic to instances that can journal)
    // and /metrics.
    const base = gateway.url.replace(/\/v1$/, '');
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      dependencies: { journal: { ok: false, error: expect.stringMatching(/journal cannot write: ENOTDIR/) } },
    });
    expect(await (await fetch(`${base}/metrics`)).text()).toContain(
      'gateway_dependency_up{dependency="journal"} 0',
    );
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  }, 60_000);
});
