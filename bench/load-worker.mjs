// The load generator, in its own process so that it can be pinned to a core apart from the servers. Reads one
// JSON command per stdin line, `{ "id": 1, "jobs": [{ "url", "method", "headers", "body", "connections",
// "duration" }] }`, runs the jobs at the same time with autocannon and answers one JSON line
// `{ "id": 1, "results": [{ "ok", "rps", "non2xx", "errors", "timeouts", "latencyP50", "latencyP99" }] }`.
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

async function runJob(job) {
  const result = await autocannon({
    url: job.url,
    method: job.method ?? 'POST',
    headers: job.headers,
    body: job.body,
    connections: job.connections,
    duration: job.duration,
    pipelining: 1,
    timeout: 30,
  });
  const seconds = result.duration || job.duration;
  return {
    ok: result['2xx'],
    rps: result['2xx'] / seconds,
    seconds,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
  };
}

const lines = createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const command = JSON.parse(line);
  const results = await Promise.all(command.jobs.map(runJob));
  process.stdout.write(`${JSON.stringify({ id: command.id, results })}\n`);
});
lines.on('close', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
