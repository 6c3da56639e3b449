// One way of `npm run bench:spool`: spools `images` noise images of `megabytes` through the
// gallery's spool, as a 4K reply feeds it (64 KB pieces of base64, each write's backpressure
// waited for), and prints the process's CPU and the time inside write() per image as JSON.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createImageSpool } from '../../src/gateway/gallery/spool';

const [dir, imagesArg, megabytesArg] = process.argv.slice(2);
const images = Number(imagesArg);
const bytes = randomBytes(Number(megabytesArg) * 1024 * 1024);
const text = Buffer.from(bytes.toString('base64'), 'latin1');
const pieces: Buffer[] = [];
for (let at = 0; at < text.length; at += 64 * 1024)
  pieces.push(Buffer.from(text.subarray(at, at + 64 * 1024)));

const cpuMs: number[] = [];
const writeMs: number[] = [];
for (let i = 0; i < images; i += 1) {
  const before = process.cpuUsage();
  let inWrite = 0;
  const spool = createImageSpool(dir!, (line) => process.stderr.write(`${line}\n`));
  for (const piece of pieces) {
    const started = performance.now();
    const held = spool.write(piece);
    inWrite += performance.now() - started;
    if (held) await held;
  }
  const spooled = await spool.finish();
  const used = process.cpuUsage(before);
  if (!spooled || spooled.bytes !== bytes.length) throw new Error('the spool lost bytes');
  // The first image of each way is checked byte for byte: a fast way that writes the wrong
  // bytes would win.
  if (i === 0 && !fs.readFileSync(spooled.path).equals(bytes))
    throw new Error('the spooled file differs from the image');
  fs.rmSync(spooled.path);
  cpuMs.push((used.user + used.system) / 1000);
  writeMs.push(inWrite);
}
process.stdout.write(JSON.stringify({ cpuMs, writeMs }));
