import { expect, test, type Page } from '@playwright/test';
import type { KeyResponse } from '../../src/shared/admin';
import { settled } from './support/api';
import { choose, GeneratePage, open } from './support/pages';
import { useStudio } from './support/studio';

const studio = useStudio();

/** Sets the studio budget on the Settings page, as a person does. */
async function setBudget(
  page: Page,
  choice: 'none' | 'session' | 'month',
  amount: string,
  confirmAbove: string,
) {
  await open(page, 'settings');
  const panel = page.getByTestId('studio-budget');
  await choose(page, 'studio-budget-choice', choice);
  if (choice !== 'none') await panel.getByTestId('studio-budget-amount').fill(amount);
  await panel.getByTestId('studio-budget-confirm-above').fill(confirmAbove);
  await panel.getByTestId('studio-budget-save').click();
  await expect(panel.getByTestId('studio-budget-state')).toHaveText('Saved.');
}

/** A low-quality 1024x1024 run of `n` from Generate, sent and finished. */
async function cheapRun(page: Page, prompt: string, n: number): Promise<GeneratePage> {
  await open(page, 'generate');
  const generate = new GeneratePage(page);
  await generate.prompt().fill(prompt);
  await generate.size().selectOption('1024x1024');
  await generate.choose('param-quality', 'low');
  await page.getByTestId('param-n').fill(String(n));
  await generate.submit().click();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  return generate;
}

const studioKey = async () =>
  (await studio.admin<KeyResponse>('GET', '/api/admin/keys/studio')).record;

test('a monthly studio budget: the ring, the confirmation above the threshold (cancelled, then sent), the notices', async () => {
  const { page } = studio;
  await expect(page.getByTestId('budget-ring')).toContainText('Set a studio budget');

  // $0.60 a month on the Studio key; ask before anything above $0.05.
  await setBudget(page, 'month', '0.60', '0.05');
  const ring = page.getByTestId('budget-meter');
  await expect(page.getByTestId('budget-label')).toHaveText('$0.00 of $0.60 this month');
  await expect(ring).toHaveAttribute('data-kind', 'key');
  await expect(ring).toHaveAttribute('title', /\$0\.00 of \$0\.60 this month/);
  // The gateway holds it, as any key's budget.
  expect(await studioKey()).toMatchObject({ budgetMicros: 600_000, budgetPeriod: 'month' });

  // A cheap request goes without a question, and shows its cost per kept image.
  const generate = await cheapRun(page, 'A paper boat on a puddle, ink drawing', 2);
  await expect(page.getByTestId('spend-confirm')).not.toBeVisible();
  const cost = Number(await page.getByTestId('actual-cost').getAttribute('data-cost-micros'));
  expect(cost).toBeGreaterThan(0);
  await expect(page.getByTestId('cost-per-image')).toHaveAttribute(
    'data-cost-micros',
    String(Math.round(cost / 2)),
  );
  await expect(page.getByTestId('cost-per-image')).toContainText('per kept image');
  await settled(studio, 'usage', 1);
  await expect(page.getByTestId('budget-label')).not.toHaveText('$0.00 of $0.60 this month');

  // An expensive one asks first, naming what it is; Cancel sends nothing.
  await generate.size().selectOption('1536x1024');
  await generate.choose('param-quality', 'high');
  const estimate = Number(await page.getByTestId('cost-estimate').getAttribute('data-cost-micros'));
  expect(estimate).toBeGreaterThan(50_000);
  const before = (await studio.admin<{ total: number }>('GET', '/api/admin/usage?limit=1')).total;
  await generate.submit().click();
  const dialog = page.getByTestId('spend-confirm');
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('spend-confirm-question')).toHaveText(
    /^2 x 1536x1024 high, about \$0\.\d\d: continue\?$/,
  );
  await studio.screenshot('budget-confirm');
  await page.getByTestId('spend-cancel').click();
  await expect(dialog).not.toBeVisible();
  // Still the cheap run's result: nothing was sent.
  await expect(generate.results()).toHaveCount(2);
  expect((await studio.admin<{ total: number }>('GET', '/api/admin/usage?limit=1')).total).toBe(
    before,
  );

  // Sent after confirming: the spend passes half the budget, and the studio says so once.
  await generate.submit().click();
  await expect(dialog).toBeVisible();
  await page.getByTestId('spend-send').click();
  await expect(dialog).not.toBeVisible();
  await expect(generate.status()).toHaveAttribute('data-phase', 'done');
  await settled(studio, 'usage', before + 1);
  const notice = page.locator('[data-testid="budget-notice"][data-scope="studio"]');
  await expect(notice.first()).toContainText(
    /The studio passed (50|80) % of its budget: \$0\.\d+ of \$0\.60 this month\./,
  );
  const spent = (await studioKey()).limitUse.budgetUsedMicros!;
  const percent = Math.floor((spent / 600_000) * 100);
  expect(percent).toBeGreaterThanOrEqual(50);
  await expect(ring).toHaveAttribute('data-percent', String(percent));
  await studio.screenshot('budget-ring-notice');

  // Once per period: a reload does not show it again.
  await notice.first().getByTestId('budget-notice-dismiss').click();
  await page.reload();
  await expect(page.locator('.app')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('budget-label')).toContainText('of $0.60 this month');
  await expect(page.getByTestId('budget-notice')).toHaveCount(0);
});

test('a session budget is the studio’s: it counts this session’s spend and stops a request that would pass it', async () => {
  const { page } = studio;
  // A cheap run first, under the monthly budget: its "Run again" is checked below.
  await cheapRun(page, 'A pebble on a white table', 1);
  await setBudget(page, 'session', '0.20', '');
  // The key's budget is cleared: the session budget is the only one.
  expect(await studioKey()).toMatchObject({ budgetMicros: null, budgetPeriod: null });
  await expect(page.getByTestId('budget-meter')).toHaveAttribute('data-kind', 'session');
  await expect(page.getByTestId('budget-label')).toContainText('of $0.20 this session');
  // The session's spend (the test file's runs) is past 100 % of $0.20: the notice says so.
  await expect(
    page.locator('[data-testid="budget-notice"][data-scope="studio"][data-percent="100"]'),
  ).toContainText('this session');

  await open(page, 'generate');
  const generate = new GeneratePage(page);
  const before = (await studio.admin<{ total: number }>('GET', '/api/admin/usage?limit=1')).total;
  await generate.submit().click();
  await expect(page.locator('#generate-blockers')).toContainText('over the session budget');
  // "Run again" of the earlier run would send it again: it is held back as well, and says why.
  const again = page.getByTestId('retry');
  await expect(again).toBeDisabled();
  await expect(again).toHaveAttribute('title', /over the session budget/);
  expect((await studio.admin<{ total: number }>('GET', '/api/admin/usage?limit=1')).total).toBe(
    before,
  );

  // No budget: the ring offers to set one again.
  await setBudget(page, 'none', '', '');
  await expect(page.getByTestId('budget-ring')).toContainText('Set a studio budget');
});

test('another key passing its budget is a notice too, and the Usage page shows budgets, latency and success, and filters by account', async () => {
  const { page } = studio;
  // An account of its own (the simulator again), so the account filter has two to tell apart.
  const { account } = await studio.admin<{ account: { id: string } }>(
    'POST',
    '/api/admin/accounts',
    { kind: 'simulator', name: 'sim-e2e', tier: 'pro', capacity: 4 },
  );
  const capped = await studio.admin<{ key: string; record: { id: string } }>(
    'POST',
    '/api/admin/keys',
    { name: 'capped app', budgetMicros: 20_000, budgetPeriod: 'day' },
  );
  // Two low 1024x1024 images cost about $0.016: past 50 and 80 % of $0.02 in one request.
  const made = await studio.v1('/images/generations', capped.key, {
    model: 'image-model-2',
    prompt: 'A kite over a hill',
    size: '1024x1024',
    quality: 'low',
    n: 2,
  });
  expect(made.status).toBe(200);
  const keyNotices = page.locator('[data-testid="budget-notice"][data-scope="key"]');
  // One notice per budget and period: the highest threshold passed (80 %, not 50 and 80).
  await expect(keyNotices).toHaveCount(1);
  await expect(keyNotices).toHaveAttribute('data-percent', '80');
  await expect(keyNotices).toContainText(
    /Key “capped app” passed 80 % of its budget: \$0\.01\d+ of \$0\.02 today\./,
  );

  await open(page, 'usage');
  const budget = page.locator(`[data-testid="usage-budget"][data-key="${capped.record.id}"]`);
  await expect(budget.getByTestId('usage-budget-label')).toContainText('of $0.02 today');
  expect(Number(await budget.getAttribute('data-percent'))).toBeGreaterThanOrEqual(80);
  const performance = page.getByTestId('usage-performance-table');
  const keyRow = performance.locator(
    `[data-testid="usage-performance-row"][data-key="${capped.record.id}"]`,
  );
  await expect(keyRow).toContainText('capped app');
  await expect(keyRow.getByTestId('usage-performance-success')).toHaveText('100 %');
  await studio.screenshot('usage-budgets-performance');

  // One account: only its request in the table, and only it when grouped by account.
  await page.getByTestId('usage-filter-account').selectOption(account.id);
  await expect(page.getByTestId('usage-table')).toHaveAttribute('data-total', '1');
  await choose(page, 'usage-performance-group', 'account');
  const rows = performance.getByTestId('usage-performance-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-key', account.id);
  await expect(rows.first()).toContainText('sim-e2e');
  // The built-in simulator served everything before.
  await page.getByTestId('usage-filter-account').selectOption('simulator');
  await expect(rows.first()).toHaveAttribute('data-key', 'simulator');
  // The studio requests of the tests before: two in the first (the cancelled one was never
  // sent), one in the second.
  await expect(page.getByTestId('usage-table')).toHaveAttribute('data-total', '3');
});
