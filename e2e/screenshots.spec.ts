import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test('screenshots: library, inspector light and dark', async ({ library, inspector, page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await library.goto();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'library-empty.png') });
  await page.getByTestId('open-sample').click();
  await inspector.waitLoaded();
  await inspector.backToLibrary();
  await expect(library.rows).toHaveCount(1);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'library.png') });

  await library.open(library.rows.first());
  await inspector.waitLoaded();
  await (await inspector.hoverTurn(3)).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-light.png') });

  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveClass(/dark/);
  await inspector.clickTurn(26);
  await page.mouse.move(10, 10);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-dark.png') });

  await inspector.backToLibrary();
  await expect(library.rows).toHaveCount(1);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'library-dark.png') });
});

/** Nothing wider than the window: no control pushed off screen or behind a horizontal scroll. */
async function expectNoOverflow(page: import('@playwright/test').Page, what: string) {
  const { scroll, width, cut } = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    // Controls whose box ends past the window, or past a horizontally scrolling ancestor's edge.
    const cut = [...document.querySelectorAll('button, a, select, input')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        if (r.right > width + 1) return true;
        for (let p = el.parentElement; p; p = p.parentElement) {
          const s = getComputedStyle(p);
          if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && p.scrollWidth > p.clientWidth + 1) return r.right > p.getBoundingClientRect().right + 1;
        }
        return false;
      })
      .map((el) => (el.getAttribute('data-testid') ?? el.textContent ?? el.tagName).trim().slice(0, 40));
    return { scroll: document.documentElement.scrollWidth, width, cut };
  });
  expect(cut, `${what}: controls cut off`).toEqual([]);
  expect(scroll, `${what}: page wider than the window`).toBeLessThanOrEqual(width);
}

for (const size of [
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
]) {
  test(`${size.width}×${size.height}: library and inspector fit the window, every row action reachable`, async ({ library, inspector, page }) => {
    await page.setViewportSize(size);
    await library.goto();
    await page.getByTestId('open-sample').click();
    await inspector.waitLoaded();
    await expect(page.getByTestId('inspector-title')).toBeVisible();
    expect((await page.getByTestId('inspector-title').boundingBox())!.width).toBeGreaterThan(60);
    await expectNoOverflow(page, 'inspector');
    await page.screenshot({ path: path.join(SCREENSHOTS, `inspector-${size.width}.png`) });
    await inspector.backToLibrary();
    await expect(library.rows).toHaveCount(1);
    // A row with long names (title, "OpenAI Codex CLI rollout", model) beside the sample's.
    await library.importFile(corpusFile('codex-cli', 'vibecodingtracker_codex_0.39.0.jsonl'));
    await expect(library.rows).toHaveCount(2);
    for (const row of [library.rows.first(), library.rows.last()]) for (const action of ['rename', 'export-original', 'delete']) await expect(row.getByTestId(action)).toBeInViewport();
    await expectNoOverflow(page, 'library');
    await page.screenshot({ path: path.join(SCREENSHOTS, `library-${size.width}.png`) });
    // The long format label and model of a Codex rollout in the inspector's top bar (Settings was cut at 1280).
    await library.open(library.rows.filter({ hasText: 'vibecodingtracker_codex' }));
    await inspector.waitLoaded();
    await expectNoOverflow(page, 'inspector (Codex rollout)');
  });
}
