import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { DB_NAME } from '../lib/db/schema';
import { PURGE_DELETED_AFTER_MS, UNDO_WINDOW_MS } from '../lib/undo';
import type { Page } from '@playwright/test';
import { LibraryPage } from './pages/LibraryPage';
import { corpusFile, expect, expectedTurns, test } from './fixtures';

test('paste: JSON text becomes "pasted.json" and imports', async ({ library }) => {
  const file = corpusFile('openai-chat', 'vercel-ai_openai-chat-completion-text.json');
  const text = fs.readFileSync(file, 'utf8');
  await library.goto();
  await library.paste(text);
  const row = await library.waitForRow('pasted.json');
  expect(await library.rowTurns(row)).toBe(expectedTurns(file));
  // The original of a paste is the pasted text, byte for byte.
  expect((await library.exportOriginal(row)).toString('utf8')).toBe(text);
});

test('Open a sample: the demo session opens in the inspector with its compaction', async ({ library, inspector, page }) => {
  const sample = path.join(process.cwd(), 'public/sample/contextscope-demo.jsonl');
  const t = importBytes('contextscope-demo.jsonl', new Uint8Array(fs.readFileSync(sample))).transcript;
  expect(t.format).toBe('claude-code');
  await library.goto();
  await page.getByTestId('open-sample').click();
  await inspector.waitLoaded();
  expect(await inspector.turns()).toBe(t.turnCount);
  await expect(inspector.title).toHaveText(t.title);
  // The compact_boundary + isCompactSummary pair is shown as the source's summary.
  await expect(page.getByTestId('summary-block')).toHaveCount(1);
});

test('a bad file shows a specific error (file, line or field, expected) and stores nothing', async ({ library, page }) => {
  await library.goto();
  // Mine but unusable: an OpenAI Chat document whose message content has the wrong type.
  await library.importBuffer('wrong-field.json', '{"messages": [{"role": "user", "content": 5}]}');
  const fieldError = library.errors.first();
  await expect(fieldError).toBeVisible();
  await expect(fieldError).toHaveAttribute('data-code', 'malformed:openai-chat');
  await expect(fieldError).toContainText('wrong-field.json');
  await expect(fieldError).toContainText('$.messages[0].content');
  await expect(fieldError).toContainText('Expected a string, null, or an array of content parts.');

  // Not JSON at all: a document cut off mid-way.
  await library.importBuffer('truncated.json', '{"messages": [{"role": "user", "content": "hi"} ');
  await expect(library.errors).toHaveCount(2);
  await expect(library.errors.nth(1)).toHaveAttribute('data-code', 'malformed:json');
  await expect(library.errors.nth(1)).toContainText('line 1');

  // Nobody's format.
  await library.importBuffer('notes.jsonl', '{"hello": "world"}\n{"again": 1}\n');
  await expect(library.errors.nth(2)).toHaveAttribute('data-code', 'unsupported:format');

  await expect(library.empty).toBeVisible();
  await expect(library.rows).toHaveCount(0);

  // Errors stay until dismissed.
  await library.errors.first().getByTestId('import-error-dismiss').click();
  await expect(library.errors).toHaveCount(2);

  await page.reload();
  await expect(library.empty).toBeVisible();
  await expect(page.getByTestId('import-interrupted')).toHaveCount(0);
});

test('delete with undo; the library survives a reload', async ({ library, page }) => {
  const file = corpusFile('openai-chat', 'vercel-ai_openai-chat-completion-text.json');
  const other = corpusFile('claude-code', 'simonw_sample_session.jsonl');
  await library.goto();
  await library.importFile(file);
  await library.waitForRow(path.basename(file));
  await library.importFile(other);
  await library.waitForRow(path.basename(other));
  await expect(library.rows).toHaveCount(2);

  await library.delete(library.row(path.basename(file)));
  await expect(library.rows).toHaveCount(1);
  await page.getByTestId('undo-delete').click();
  await expect(library.rows).toHaveCount(2);

  await page.reload();
  await expect(library.rows).toHaveCount(2);

  // Delete for good: after a reload (the undo window closed) it stays gone.
  await library.delete(library.row(path.basename(other)));
  await expect(library.rows).toHaveCount(1);
  await page.reload();
  await expect(library.rows).toHaveCount(1);
  await expect(library.row(path.basename(file))).toHaveCount(1);
});

test('two tabs: a held undo toast waits, and a tab that opens meanwhile does not purge its deletion', async ({ library, page, context }) => {
  // The page's clock (Playwright's page.clock: its timers, Date and performance.now) is run past the
  // purge age instead of waited out in real time (session 22: this test was ~33 s, 19 of them a
  // wait). The engine worker's clock is not the page's: it stamps and purges deletions by real time.
  // So the deletion is made as old as the wait used to make it (its stamp set back by the purge age
  // + 1 s, in the database), and the held toast's own timers, run for that long, must make it young
  // again (the re-stamp every DELETION_RENEW_MS) before the second tab's start-up purge looks.
  await page.clock.install();
  const file = corpusFile('openai-chat', 'vercel-ai_openai-chat-completion-text.json');
  await library.goto();
  await library.importFile(file);
  await library.waitForRow(path.basename(file));
  await library.delete(library.row(path.basename(file)));
  await expect(library.rows).toHaveCount(0);
  const toast = page.getByTestId('undo-toast');
  await expect(toast).toBeVisible();
  const deletedStamp = await deletionStamp(page);
  expect(deletedStamp).not.toBeNull();

  // The pointer on the toast pauses its countdown; the tab keeps re-stamping the deletion meanwhile.
  await toast.hover();
  await expect(toast).toHaveAttribute('data-held', 'true');
  // The first stamp of the hold (at once), before the stamp is set back: it must not overwrite that.
  await expect.poll(() => deletionStamp(page)).not.toBe(deletedStamp);
  await setDeletionStamp(page, new Date(Date.now() - PURGE_DELETED_AFTER_MS - 1_000).toISOString());
  await page.clock.runFor(PURGE_DELETED_AFTER_MS + 1_000);
  await expect(toast).toBeVisible();

  // A second tab of the same browser opens the library: its start-up recovery (which purges
  // deletions older than PURGE_DELETED_AFTER_MS) runs before it lists.
  const second = new LibraryPage(await context.newPage());
  await second.goto();
  await expect(second.empty).toBeVisible();

  // The first tab's undo still restores the transcript, and the second tab sees it on reload.
  await page.getByTestId('undo-delete').click();
  await expect(library.rows).toHaveCount(1);
  await expect(page.getByText('could not be restored')).toHaveCount(0);
  await second.goto();
  await expect(second.rows).toHaveCount(1);
  await second.page.close();
});

test('released, the undo toast counts down again and its deletion is purged', async ({ library, page }) => {
  await page.clock.install();
  const file = corpusFile('openai-chat', 'vercel-ai_openai-chat-completion-text.json');
  await library.goto();
  await library.importFile(file);
  await library.waitForRow(path.basename(file));
  await library.delete(library.row(path.basename(file)));
  const toast = page.getByTestId('undo-toast');
  await toast.hover();
  await expect(toast).toHaveAttribute('data-held', 'true');
  // The page's clock runs the countdown (session 22: this test waited the 8 s window in real time).
  // Paused while the toast is held (its countdown paused too), it moves only when the test runs it.
  await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1_000));
  await page.mouse.move(0, 0);
  await expect(toast).not.toHaveAttribute('data-held');
  // Released a moment after the delete, it had most of UNDO_WINDOW_MS left: a second on it is still
  // up; UNDO_WINDOW_MS after the release (it never had more) it is gone.
  await page.clock.runFor(1_000);
  await expect(toast).toBeVisible();
  await page.clock.runFor(UNDO_WINDOW_MS - 1_000);
  await expect(toast).toBeHidden();
  await page.clock.resume();
  // Its own purge follows: the soft-deleted row leaves the database (no tab's start-up would take
  // a deletion this young).
  const storedRows = async () => (await storedTranscripts(page)).length;
  await expect.poll(storedRows).toBe(0);
});

test('rename and sort the table', async ({ library, page }) => {
  await library.goto();
  await library.importFile(corpusFile('openai-chat', 'vercel-ai_openai-chat-completion-text.json'));
  await library.waitForRow('vercel-ai_openai-chat-completion-text.json');
  await library.importFile(corpusFile('claude-code', 'simonw_sample_session.jsonl'));
  const row = await library.waitForRow('simonw_sample_session.jsonl');
  await row.getByTestId('rename').click();
  await page.getByTestId('rename-input').fill('Zebra session');
  await page.getByTestId('rename-input').press('Enter');
  await expect(library.row('simonw_sample_session.jsonl')).toContainText('Zebra session');
  await page.getByTestId('sort-title').click();
  await expect(library.rows.first()).not.toContainText('Zebra session');
  await page.getByTestId('sort-title').click();
  await expect(library.rows.first()).toContainText('Zebra session');
});

test('an import in progress can be cancelled; nothing is stored and the next import works', async ({ library, page }) => {
  // Two worker starts and a large upload: slow on a loaded machine.
  test.setTimeout(90_000);
  // A large synthetic OpenAI Chat document (not a corpus file): big enough that parsing takes a while.
  const messages = Array.from({ length: 14_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.padEnd(1200, 'lorem ipsum ') }));
  // Written to a file and given by its path: Chromium reads it from disk. As a buffer (17 MB) it
  // crossed the DevTools protocol as base64 first, 13 s of the test on a quiet machine (session 21).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-big-'));
  const big = path.join(dir, 'big.json');
  fs.writeFileSync(big, JSON.stringify({ model: 'gpt-4o', messages }));
  await library.goto();
  await library.importFile(big);
  await expect(page.getByTestId('import-progress')).toBeVisible();
  await page.getByTestId('import-cancel').click();
  await expect(page.getByTestId('import-progress')).toHaveCount(0);
  await expect(library.errors).toHaveCount(0);
  await expect(library.rows).toHaveCount(0);

  const file = corpusFile('openai-chat', 'vercel-ai_openai-chat-completion-text.json');
  await library.importFile(file);
  await library.waitForRow(path.basename(file));
  await expect(library.rows).toHaveCount(1);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the theme toggle persists across a reload without a flash', async ({ library, page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await library.goto();
  await expect(page.locator('html')).not.toHaveClass(/dark/);
  // On a light system the first click goes dark (a click always changes the page), the second to
  // an explicit light, the third back to the system's; then dark again.
  const toggle = page.getByTestId('theme-toggle');
  await toggle.click();
  await expect(page.locator('html')).toHaveClass(/dark/);
  await toggle.click();
  await expect(page.locator('html')).not.toHaveClass(/dark/);
  await expect(toggle).toHaveAttribute('title', 'Theme: light');
  await toggle.click();
  await expect(toggle).toHaveAttribute('title', 'Theme: system');
  await toggle.click();
  await expect(page.locator('html')).toHaveClass(/dark/);
  // The pre-paint script sets the class before any React code runs.
  await page.route('**/_next/static/chunks/**', (route) => route.abort());
  await page.reload();
  await expect(page.locator('html')).toHaveClass(/dark/);
});

/** The library's stored transcript rows (soft-deleted ones too), read in the page's IndexedDB. */
function storedTranscripts(page: Page): Promise<Array<{ deletedAt?: string }>> {
  return page.evaluate(
    (name) =>
      new Promise<Array<{ deletedAt?: string }>>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => {
          const all = open.result.transaction('transcripts').objectStore('transcripts').getAll();
          all.onsuccess = () => {
            open.result.close();
            resolve(all.result as Array<{ deletedAt?: string }>);
          };
          all.onerror = () => reject(all.error);
        };
        open.onerror = () => reject(open.error);
      }),
    DB_NAME,
  );
}

/** The `deletedAt` stamp of the library's one soft-deleted transcript (null if there is none). */
async function deletionStamp(page: Page): Promise<string | null> {
  return (await storedTranscripts(page)).find((m) => m.deletedAt !== undefined)?.deletedAt ?? null;
}

/** Set the stamp of the library's soft-deleted transcripts, as if they had been deleted (or last re-stamped) at `at`. */
function setDeletionStamp(page: Page, at: string): Promise<void> {
  return page.evaluate(
    ({ name, at }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => {
          const tx = open.result.transaction('transcripts', 'readwrite');
          const store = tx.objectStore('transcripts');
          const all = store.getAll();
          all.onsuccess = () => {
            for (const m of all.result as Array<{ deletedAt?: string }>) if (m.deletedAt !== undefined) store.put({ ...m, deletedAt: at });
          };
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
        open.onerror = () => reject(open.error);
      }),
    { name: DB_NAME, at },
  );
}
