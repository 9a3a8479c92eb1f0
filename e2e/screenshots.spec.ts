import fs from 'node:fs';
import path from 'node:path';
import { expect, SCREENSHOTS, test } from './fixtures';

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
