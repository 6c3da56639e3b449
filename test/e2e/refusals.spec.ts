import { expect, test } from '@playwright/test';
import type { KeyResponse } from '../../src/shared/admin';
import { scriptFaults, settled } from './support/api';
import { GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';
import {
  atWindowSize,
  expectClickable,
  expectWhollyVisible,
  sizeName,
  WINDOW_SIZES,
} from './support/windows';

const studio = useStudio();

const studioKey = async () =>
  (await studio.admin<KeyResponse>('GET', '/api/admin/keys/studio')).record;
const limitStudioKey = async (limits: Record<string, unknown>) =>
  studio.admin('PATCH', `/api/admin/keys/${(await studioKey()).id}`, limits);

/** A cheap run from Generate; resolves once it ended (done or refused). */
async function run(prompt: string, phase: 'done' | 'error'): Promise<GeneratePage> {
  const { page } = studio;
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill(prompt);
  await generate.size().selectOption('1024x1024');
  await generate.choose('param-quality', 'low');
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', phase);
  return generate;
}

/** The refusal as a person sees it at every window size: whole, its action clickable. */
async function seenAtEverySize(withAction: boolean) {
  const { page } = studio;
  for (const size of WINDOW_SIZES) {
    await atWindowSize(page, size, async () => {
      const notice = page.getByTestId('run-error');
      await notice.scrollIntoViewIfNeeded();
      await expectWhollyVisible(
        notice.getByTestId('error-title'),
        `the title at ${sizeName(size)}`,
      );
      await expectWhollyVisible(
        notice.getByTestId('error-advice'),
        `the advice at ${sizeName(size)}`,
      );
      if (withAction) await expectClickable(notice.getByTestId('error-action'), 'the action');
    });
  }
}

test.afterEach(async () => {
  await limitStudioKey({ budgetMicros: null, rpmLimit: null, imagesPerDay: null });
});

test('the monthly studio budget used up says so: used of what, raise it in Settings or wait, no Retry', async () => {
  const { page } = studio;
  studio.allowConsole(/status of 429/);
  await run('A pear on a plate', 'done');
  await settled(studio, 'usage', 1);
  // The budget is exactly what is spent: the next request finds it used.
  const spent = (await studioKey()).costMicros;
  expect(spent).toBeGreaterThan(0);
  await limitStudioKey({ budgetMicros: spent, budgetPeriod: 'month' });

  await run('A second pear', 'error');
  const notice = page.getByTestId('run-error');
  await expect(notice).toHaveAttribute('data-kind', 'budget');
  await expect(notice).toHaveAttribute('data-code', 'budget_exceeded');
  await expect(notice).toHaveAttribute('data-retry', 'never');
  const dollars = `$${(spent / 1e6).toFixed(spent >= 100_000 ? 2 : 4)}`;
  await expect(notice.getByTestId('error-title')).toHaveText(
    `This month’s studio budget is used: ${dollars} of ${dollars}.`,
  );
  // The first of next month, local (UTC in CI: "1 December"; elsewhere a date and a time).
  await expect(notice.getByTestId('error-advice')).toHaveText(
    /^Raise it in Settings, or wait until \d{1,2} [A-Z][a-z]+(, \d\d:\d\d)?\.$/,
  );
  await expect(notice).not.toContainText(/busy/i);
  await expect(notice.getByTestId('retry')).toHaveCount(0);
  await seenAtEverySize(true);
  await studio.screenshot('refusal-budget');
  await notice.getByTestId('error-action').click();
  await expect(page.getByTestId('page-settings')).toBeVisible();
});

test('requests per minute: which limit, Retry only once the minute has passed, the Keys page', async () => {
  const { page } = studio;
  studio.allowConsole(/status of 429/);
  await limitStudioKey({ rpmLimit: 1 });
  // One request this minute: the admitted one above, or this one.
  if ((await studioKey()).limitUse.requestsLastMinute < 1) await run('A fig', 'done');
  await run('A fig again', 'error');
  const notice = page.getByTestId('run-error');
  await expect(notice).toHaveAttribute('data-kind', 'rate');
  await expect(notice).toHaveAttribute('data-retry', 'later');
  await expect(notice.getByTestId('error-title')).toHaveText(
    /^Too many requests this minute: \d+ of 1\.$/,
  );
  await expect(notice.getByTestId('error-advice')).toContainText(
    /Retry comes back at \d\d:\d\d \(in \d+ s\)/,
  );
  await expect(notice.getByTestId('retry')).toHaveCount(0);
  await expect(notice.getByTestId('error-action')).toHaveAttribute('data-path', '/keys');
  await seenAtEverySize(true);
});

test('images per day: how many of how many, the Keys page or tomorrow, no Retry', async () => {
  const { page } = studio;
  studio.allowConsole(/status of 429/);
  const today = (await studioKey()).limitUse.imagesToday;
  expect(today).toBeGreaterThan(0);
  await limitStudioKey({ imagesPerDay: today });
  await run('A plum', 'error');
  const notice = page.getByTestId('run-error');
  await expect(notice).toHaveAttribute('data-kind', 'daily');
  await expect(notice).toHaveAttribute('data-retry', 'never');
  await expect(notice.getByTestId('error-title')).toHaveText(
    `Today’s images are used: ${today} of ${today}, and this request asks for 1.`,
  );
  await expect(notice.getByTestId('error-advice')).toHaveText(
    /^Raise the images per day on the Keys page, or wait until tomorrow(, \d\d:\d\d)?\.$/,
  );
  await expect(notice.getByTestId('retry')).toHaveCount(0);
  await seenAtEverySize(true);
  await notice.getByTestId('error-action').click();
  await expect(page.getByTestId('page-keys')).toBeVisible();
});

test("the upstream's usage limit is the account's, with the Accounts page; its busy 429 stays busy", async () => {
  const { page } = studio;
  studio.allowConsole(/status of 429/);
  await scriptFaults(studio, [{ kind: 'usage_limit', resetsInSeconds: 30 * 60 }]);
  await run('A quince', 'error');
  const notice = page.getByTestId('run-error');
  await expect(notice).toHaveAttribute('data-kind', 'limit');
  await expect(notice.getByTestId('error-title')).toHaveText(
    'The upstream account’s usage limit is reached',
  );
  await expect(notice.getByTestId('error-action')).toHaveAttribute('data-path', '/accounts');
  await seenAtEverySize(true);
});
