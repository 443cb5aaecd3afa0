// Micro-benchmark of the record journal: CPU and wall time per request for begin + finish (the journal's whole
// cost on the request path), with N requests finishing per event-loop turn. Run after `npm run build`:
//   node bench/journal.mjs [requests=50000] [perTurn=50]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordJournal } from '../dist/records/record-journal.js';

const total = Number(process.argv[2] ?? 50_000);
const perTurn = Number(process.argv[3] ?? 50);

function record(i) {
  return {
    genId: `gen_${String(i).padStart(36, '0')}`,
    orgId: 'acme',
    apiKeyId: 'key_0123',
    model: 'acme/chat-large',
    provider: 'fast-cloud',
    path: '/v1/chat/completions',
    status: 'success',
    httpStatus: 200,
    errorCode: null,
    errorMessage: null,
    streamed: i % 2 === 0,
    totalDurationMs: 1234.5,
    durationMsToFirstToken: 321,
    createdAt: new Date().toISOString(),
    reqCost: 0.000123,
    costNanoUsd: 150_000,
    inputTokens: 1000,
    outputTokens: 200,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    planningInputTokens: 0,
    planningOutputTokens: 0,
    planningCost: 0,
    loadedTools: '',
    routingCost: 0,
    optimizationPercentage: 0,
    score: 0,
    skills: '',
    tag: '',
    planningStatus: 'none',
    attempts: [
      { provider: 'fast-cloud', model: 'chat-large-2026', outcome: 'success', status: 200, durationMs: 900 },
    ],
    warnings: [],
  };
}

async function run(fsyncIntervalMs) {
  const dir = mkdtempSync(join(tmpdir(), 'journal-bench-'));
  const { journal } = RecordJournal.open({
    dir,
    segmentBytes: 8 * 1024 * 1024,
    fsyncIntervalMs,
    progressIntervalMs: 1000,
    log: () => undefined,
  });
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  for (let i = 0; i < total; i += perTurn) {
    const turn = [];
    for (let j = i; j < Math.min(total, i + perTurn); j += 1) {
      const r = record(j);
      journal.begin({ ...r, reservedNanoUsd: 1_000_000 });
      journal.progress(r.genId, { inputTokens: 1000, costNanoUsd: 2_000 });
      turn.push(journal.finish(r));
    }
    await Promise.all(turn);
    journal.shipped(turn.map((_, k) => `gen_${String(i + k).padStart(36, '0')}`));
  }
  const wallMs = performance.now() - wallStart;
  const cpu = process.cpuUsage(cpuStart);
  journal.close();
  rmSync(dir, { recursive: true, force: true });
  const cpuUs = (cpu.user + cpu.system) / total;
  console.log(
    `fsyncIntervalMs=${fsyncIntervalMs}: ${total} requests, ${perTurn} per turn: ` +
      `${cpuUs.toFixed(2)} µs CPU and ${((wallMs * 1000) / total).toFixed(2)} µs wall per request ` +
      `(${Math.round(total / (wallMs / 1000))} requests/s on one core)`,
  );
}

await run(1000);
await run(0);
