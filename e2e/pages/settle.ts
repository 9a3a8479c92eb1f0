import type { Page } from '@playwright/test';

/**
 * Wait in the page until `predicate` holds, checked every SETTLE_POLL_MS, before a Playwright
 * assertion on the same condition. Playwright re-checks a waiting assertion or action on a backoff
 * that settles at one check every 500 ms (playwright-core's retryWithProgressAndBackoff: 20, 50,
 * 100, 100, 500, 500, …), so a condition met just after a check is seen up to half a second later,
 * a quarter of a second on average; the set-up most specs share (library → import → row → inspector)
 * waits for five such conditions of a second or more. This wait is a shortcut only: it never fails
 * (a timeout, or the page navigating, just ends it), and the caller's assertion runs after it as
 * before, passing on its first check or failing with its own message. The predicate must be no
 * stricter than that assertion, or the shortcut costs its whole timeout.
 */
export const SETTLE_POLL_MS = 50;

export async function settle(page: Page, predicate: (arg: string) => boolean, arg = '', timeout = 30_000): Promise<void> {
  await page.waitForFunction(predicate, arg, { polling: SETTLE_POLL_MS, timeout }).catch(() => undefined);
}
