import { expect } from '@playwright/test';
import type { Studio } from './studio';

export interface MadeImage {
  requestId: string;
  prompt: string;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
}

/** Creates an API key through the admin API (as the keys page does); returns its plaintext. */
export async function createKey(
  studio: Studio,
  name: string,
): Promise<{ id: string; key: string }> {
  const created = await studio.admin<{ key: string; record: { id: string } }>(
    'POST',
    '/api/admin/keys',
    { name },
  );
  return { id: created.record.id, key: created.key };
}

/** One image through /v1 with `key`, as another app would make it. */
export async function generate(
  studio: Studio,
  key: string,
  prompt: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<MadeImage> {
  const answer = await studio.v1(
    '/images/generations',
    key,
    { model: 'image-model-2', prompt, size: '1024x1024', quality: 'low', ...extra },
    headers,
  );
  if (answer.status !== 200 || !answer.requestId) {
    throw new Error(`generation failed: ${answer.status} ${JSON.stringify(answer.json)}`);
  }
  const body = answer.json as { usage: MadeImage['usage'] };
  return { requestId: answer.requestId, prompt, usage: body.usage };
}

/**
 * Usage records and gallery images are written just after each reply (never on its critical
 * path): wait until `count` of them are there before a page loads them.
 */
export async function settled(
  studio: Studio,
  what: 'usage' | 'images',
  count: number,
): Promise<void> {
  await expect
    .poll(async () => {
      if (what === 'usage') {
        return (await studio.admin<{ total: number }>('GET', '/api/admin/usage?limit=1')).total;
      }
      return (await studio.admin<{ images: unknown[] }>('GET', '/api/admin/images?limit=200'))
        .images.length;
    })
    .toBeGreaterThanOrEqual(count);
}

/** Scripts the simulator's next replies (its control API): a 429, a slow answer, a reset... */
export async function scriptFaults(
  studio: Studio,
  faults: Array<Record<string, unknown>>,
): Promise<void> {
  const response = await fetch(`${studio.server.simUrl}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...studio.server.simControl },
    body: JSON.stringify({ faults }),
  });
  expect(response.ok, 'the simulator took the faults').toBe(true);
}

/** Waits until the simulator has received an image call whose prompt includes `marker`. */
export async function upstreamReceived(studio: Studio, marker: string): Promise<void> {
  await expect
    .poll(async () => {
      const response = await fetch(`${studio.server.simUrl}/__sim/calls`, {
        headers: studio.server.simControl,
      });
      const { calls } = (await response.json()) as { calls: Array<{ prompt?: string }> };
      return calls.some((call) => call.prompt?.includes(marker) === true);
    })
    .toBe(true);
}
