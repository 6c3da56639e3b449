import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, tempDir, usageRow, type TestGateway } from '../support/gateway';

/**
 * A data folder on a small tmpfs of its own, so the disk can be filled and freed for real.
 * Mounting needs root (CI runs as root); elsewhere the suite says why it does not run.
 */
const isRoot = process.getuid?.() === 0;
const mount = tempDir('atelier-full-');
let t: TestGateway;
let mounted = false;

beforeAll(async () => {
  if (!isRoot) return;
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mount]);
  mounted = true;
  t = await startTestGateway({ dataDir: path.join(mount, 'data') });
});
afterAll(async () => {
  await t?.close();
  if (mounted) execFileSync('umount', [mount]);
  fs.rmSync(mount, { recursive: true, force: true });
});

const filler = () => path.join(mount, 'filler');

/** Resolves once `read()` is true, checking every 10 ms (a condition, not a fixed wait). */
async function until(read: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!read()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the usage log');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Fills the tmpfs to its last byte. */
function fillDisk(): void {
  const fd = fs.openSync(filler(), 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          fs.writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

interface Answer {
  status: number;
  requestId: string;
  body: { data?: unknown[]; error?: { code: string; message: string } };
}

async function generate(prompt: string): Promise<Answer> {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt, size: '1024x1024', quality: 'low' }),
  });
  return {
    status: res.status,
    requestId: res.headers.get('x-request-id')!,
    body: (await res.json()) as Answer['body'],
  };
}

const rowsOf = (requestId: string) =>
  t.db.prepare('SELECT COUNT(*) FROM usage_records WHERE request_id = ?').pluck().get(requestId);

describe.runIf(isRoot)('a usage log that cannot be written (disk full)', () => {
  it('starts no new upstream work, keeps running records in memory and writes them once space returns', async () => {
    const warm = await generate('disk full: before');
    expect(warm.status).toBe(200);
    await usageRow(t, warm.requestId);

    fillDisk();
    // Under way when the disk fills: the first write to fail (its pending row) closes the log;
    // these requests were running already, so they finish and keep their records in memory.
    const during = await Promise.all(
      Array.from({ length: 4 }, (_, i) => generate(`disk full: during ${i}`)),
    );
    // New requests are refused before any upstream work, with the reason.
    const refused = await generate('disk full: refused');
    expect(refused.status).toBe(503);
    expect(refused.body.error?.code).toBe('usage_log_unavailable');
    expect(refused.body.error?.message).toMatch(/disk full/);
    expect(t.gateway.usageLog().writable).toBe(false);

    const delivered = during.filter((a) => a.status === 200);
    expect(delivered.length).toBeGreaterThan(0);
    // Every delivered request has written its record (SQLite may still fit a small one into the
    // log's slack) or kept it in memory: none is lost.
    const settled = () =>
      delivered.filter((a) => rowsOf(a.requestId) === 1).length + t.gateway.usageLog().unwritten;
    await until(() => settled() === delivered.length);
    // Still full: still refused, whatever fitted.
    expect((await generate('disk full: still refused')).status).toBe(503);

    fs.rmSync(filler());
    // Every image delivered gets its row once space returns (the writer retries on its own),
    // and the log takes new requests again once a write succeeds.
    for (const a of delivered) await usageRow(t, a.requestId);
    await until(() => t.gateway.usageLog().writable);
    const after = await generate('disk full: after');
    expect(after.status).toBe(200);
    await usageRow(t, after.requestId);
    expect(t.gateway.usageLog().writable).toBe(true);

    // 0 images delivered without a row, 0 rows lost or doubled; refused requests cost nothing.
    for (const a of [warm, ...delivered, after]) expect(rowsOf(a.requestId)).toBe(1);
    for (const a of during.filter((x) => x.status !== 200)) {
      expect(a.body.error?.code).toBe('usage_log_unavailable');
      expect(rowsOf(a.requestId)).toBe(0);
    }
    expect(rowsOf(refused.requestId)).toBe(0);
    expect(t.db.prepare('SELECT COUNT(*) FROM usage_pending').pluck().get()).toBe(0);
  });
});
