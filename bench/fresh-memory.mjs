// What a megabyte costs in fresh memory against memory already mapped (README "Where the time goes", 1 MiB
// bodies): `taskset -c 0 node bench/fresh-memory.mjs`.
//
// A 1 MiB request body arrives as 16 network reads of 64 KiB. Timed, 400 times each, in two rounds:
// - joining them into a new buffer (`Buffer.concat`, as the gateway reads a body): the first round gets fresh
//   pages from the system; in the second glibc has raised its mmap threshold and reuses what it freed, as a
//   process that allocates nothing else in between can;
// - decoding the joined bytes as a string (`latin1Slice`, as a long string of a body is decoded): V8 puts a
//   string this large on pages of its own, mapped anew each time;
// - copying the reads into one buffer allocated once (the copy alone).
const MIB = 1 << 20;
const reads = Array.from({ length: 16 }, () => Buffer.alloc(64 * 1024, 0x61));
const REPEAT = 400;
let kept;

function timed(label, run) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < REPEAT; i++) kept = run();
  const ms = Number(process.hrtime.bigint() - started) / 1e6 / REPEAT;
  console.log(`${label.padEnd(34)} ${ms.toFixed(3)} ms`);
}

for (const round of [1, 2]) {
  console.log(`round ${round}`);
  timed('join into a new buffer', () => Buffer.concat(reads, MIB));
  const whole = Buffer.concat(reads, MIB);
  timed('decode as a string', () => whole.latin1Slice(0, whole.length));
  const target = Buffer.allocUnsafe(MIB);
  timed('copy into one buffer kept', () => {
    let offset = 0;
    for (const read of reads) offset += read.copy(target, offset);
    return target;
  });
}
if (kept === undefined) process.exitCode = 1;
