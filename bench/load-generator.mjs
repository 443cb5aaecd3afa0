// The orchestrator's side of load-worker.mjs: start it pinned, send it jobs, await its answers.
import { fileURLToPath } from 'node:url';

/** Starts the load worker pinned to `cpu`; returns `{ run(jobs) → results[] }`. */
export async function startLoadGenerator(group, cpu) {
  const script = fileURLToPath(new URL('load-worker.mjs', import.meta.url));
  const { handle, lines } = await group.startHelper({ name: 'load generator', script, cpu });
  let nextId = 1;
  return {
    async run(jobs) {
      const id = nextId++;
      handle.child.stdin.write(`${JSON.stringify({ id, jobs })}\n`);
      const { value, done } = await lines.next();
      if (done) throw new Error(`load generator exited: ${handle.tail.trim()}`);
      const answer = JSON.parse(value);
      if (answer.id !== id) throw new Error(`load generator answered ${answer.id}, expected ${id}`);
      return answer.results;
    },
  };
}
