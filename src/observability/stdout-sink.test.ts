import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const SINK = JSON.stringify(pathToFileURL(resolve('dist/observability/stdout-sink.js')).href);

/** A child process that runs `body` with a `StdoutSink` on its standard output as `sink`, `dropped` counting lines. */
function childWithSink(body: string) {
  const script = `
    import { StdoutSink } from ${SINK};
    let dropped = 0;
    const report = (value) => process.stderr.write(JSON.stringify(value) + '\\n');
    const sink = new StdoutSink({
      fd: process.stdout.fd,
      maxPendingBytes: 16 * 1024 * 1024,
      onDrop: (text) => { dropped += text.split('\\n').length - 1; },
      retryFull: () => true,
    });
    process.stdin.on('end', () => process.exit(0)).resume();
    ${body}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const reports: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) reports.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const report = async (key: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = reports.find((entry) => key in entry);
      if (found) return found;
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { child, report };
}

describe('StdoutSink', () => {
  it('keeps what a full pipe refuses and writes it, in order, once the reader comes back', async () => {
    // 40,000 lines (2.6 MB) in 400 batches to a pipe nobody reads yet: it takes about 64 KiB, the rest waits.
    const { child, report } = childWithSink(`
      let line = 0;
      for (let batch = 0; batch < 400; batch++) {
        let text = '';
        for (let i = 0; i < 100; i++) text += JSON.stringify({ line: line++, pad: 'x'.repeat(40) }) + '\\n';
        sink.write(text);
      }
      report({ written: line });
      sink.flush(() => report({ drained: true, dropped }));
    `);
    expect(await report('written')).toEqual({ written: 40_000 });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    expect(await report('drained')).toEqual({ drained: true, dropped: 0 });
    child.stdin.end();
    await new Promise((done) => child.on('exit', done));
    const lines = out.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(40_000);
    expect(lines.map((line) => (JSON.parse(line) as { line: number }).line)).toEqual(
      Array.from({ length: 40_000 }, (_v, i) => i),
    );
  });

  it('drops and counts what an output that is gone refuses, without throwing', async () => {
    const { child, report } = childWithSink(`
      process.stdin.once('data', () => {
        for (let i = 0; i < 3; i++) sink.write(JSON.stringify({ i }) + '\\n');
        report({ dropped });
      });
    `);
    // The reading end closed: every write answers EPIPE.
    child.stdout.destroy();
    child.stdin.write('go\n');
    expect(await report('dropped')).toEqual({ dropped: 3 });
    child.stdin.end();
    expect(await new Promise((done) => child.on('exit', done))).toBe(0);
  });
});
