import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/gateway/settings';
import {
  settingsIn,
  startTestGateway,
  usageRow,
  type TestGateway,
  simInit,
} from '../support/gateway';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

/** The first refused corpus prompt of a category (the corpus is the filter's own test data). */
function refusedPrompt(category: string): string {
  const line = fs
    .readFileSync('test/fixtures/prompts/refused.txt', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${category}\t`));
  if (!line) throw new Error(`no corpus prompt for ${category}`);
  return line.slice(category.length + 1).trim();
}

async function simCallCount(): Promise<number> {
  return (
    (await (await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl))).json()) as {
      calls: unknown[];
    }
  ).calls.length;
}

async function generate(prompt: string) {
  const res = await fetch(`${t.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'image-model-2', prompt, quality: 'low' }),
  });
  return {
    res,
    body: (await res.json()) as { error?: { code: string; param: string; message: string } },
  };
}

describe('the content pre-filter (spec 8.3.4) in front of the upstream', () => {
  it('refuses a clearly disallowed prompt with a 400 naming the category; nothing goes upstream; zero tokens recorded', async () => {
    await fetch(`${t.simUrl}/__sim/calls`, simInit(t.simUrl, { method: 'DELETE' }));
    const { res, body } = await generate(refusedPrompt('explicit_sexual'));
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({ code: 'content_policy_violation', param: 'prompt' });
    expect(body.error!.message).toMatch(/explicit/i);
    expect(await simCallCount()).toBe(0);
    const row = await usageRow(t, res.headers.get('x-request-id')!);
    expect(row).toMatchObject({
      status: 400,
      error_code: 'content_policy_violation',
      total_tokens: 0,
      cost_micros: 0,
    });
  });

  it('lets a safe romantic scene through when it says adult, non-explicit, fully clothed', async () => {
    const { res } = await generate(
      'Two adults slow dancing on a rooftop at dusk, romantic, non-explicit, fully clothed, no nudity',
    );
    expect(res.status).toBe(200);
  });

  it('screens the text of /v1/responses input too', async () => {
    const res = await fetch(`${t.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'agent-model-1',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: refusedPrompt('sexual_minors') }] },
        ],
        tools: [{ type: 'image_generation' }],
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'content_policy_violation',
    );
  });

  it('is a setting: off sends the prompt on', async () => {
    const settings = await settingsIn(t.db);
    await settings.set(SETTINGS.contentFilter, 'off');
    try {
      expect((await generate(refusedPrompt('explicit_sexual'))).res.status).toBe(200);
    } finally {
      await settings.reset(SETTINGS.contentFilter);
    }
  });
});
