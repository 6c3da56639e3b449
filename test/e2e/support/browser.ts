import { chromium, type BrowserContext } from '@playwright/test';
import { tempDir } from './studioServer';

/** Debian's Chromium: no browser download, the same binary a developer's machine and CI have. */
export const CHROMIUM = process.env.ATELIER_E2E_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Playwright's headless launch hides scrollbars; a person's Chromium shows them, and a scrollbar
 * takes 15 px of width that layouts must survive (issue 22: the gallery's grid flickered only
 * with them). The suite keeps them.
 */
export const IGNORED_DEFAULT_ARGS = ['--hide-scrollbars'];

/** A browser with a user-data folder of its own (one per test file): no state leaks between files. */
export async function launchBrowser(): Promise<{ context: BrowserContext; profileDir: string }> {
  const profileDir = tempDir('profile');
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    ignoreDefaultArgs: IGNORED_DEFAULT_ARGS,
    headless: true,
    viewport: { width: 1440, height: 900 },
    colorScheme: 'light',
    acceptDownloads: true,
  });
  return { context, profileDir };
}
