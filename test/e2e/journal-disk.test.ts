import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { request } from '../../src/test-support/crash-burst.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { type SpawnedGateway, spawnGateway } from '../../src/test-support/spawn-gateway.js';
import { TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

// Bug: with its journal directory removed under it (or a disk that refused a new file), the gateway's next
// journal segment could not be created, the exception was uncaught, and the process ended with every
// request in flight. Nothing told an operator that records were no longer safe from a crash.
describe('the journal directory removed while the gateway runs', () => {
  const running: SpawnedGateway[] = [];
  let upstream: FakeUpstream | undefined;
  afterEach(async () => {
    for (const gateway of running.splice(0)) gateway.child.kill('SIGKILL');
    await upstream?.close();
  });

  it('keeps serving and recording, says what is wrong, and stops cleanly', async () => {
    upstream = await startFakeOpenAIUpstream();
    const dir = mkdtempSync(join(tmpdir(), 'gateway-journal-disk-'));
    const journalDir = join(dir, 'journal');
    const configPath = join(dir, 'gateway.yaml');
    const config = testConfig(upstream.url, { records: { journalDir, journalSegmentBytes: 4_096 } });
    writeFileSync(configPath, stringify(config));
    const gateway = await spawnGateway({
      GATEWAY_CONFIG: configPath,
      DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
    });
    running.push(gateway);
    rmSync(journalDir, { recursive: true, force: true });
    // Enough records, streamed and not, to fill several 4 KiB segments.
    const outcomes = [];
    for (let i = 0; i < 30; i += 1) outcomes.push(await request(gateway.url, i % 2 === 0));
    expect(outcomes.filter((outcome) => outcome.completed)).toHaveLength(30);
    expect(gateway.output()).toMatch(/record journal .* unavailable: ENOENT/);
    const last = outcomes.at(-1)?.genId ?? '';
    await expect
      .poll(
        async () =>
          (
            await fetch(`${gateway.url}/generation/${last}`, {
              headers: { authorization: `Bearer ${TEST_KEY}` },
            })
          ).status,
        { timeout: 5_000 },
      )
      .toBe(200);
    // Said where an operator looks: readiness (a load balancer moves traffic to instances that can journal)
    // and /metrics.
    const ready = await fetch(`${gateway.url.replace(/\/v1$/, '')}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      dependencies: { journal: { ok: false, error: expect.stringMatching(/journal cannot write: ENOENT/) } },
    });
    const metrics = await (await fetch(`${gateway.url.replace(/\/v1$/, '')}/metrics`)).text();
    expect(metrics).toContain('gateway_dependency_up{dependency="journal"} 0');
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  }, 60_000);
});
