import { expect, type Locator, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { settle } from './settle';

/** The library (`/`): import by picker, paste or sample; the table of stored transcripts. */
export class LibraryPage {
  readonly dropZone: Locator;
  readonly fileInput: Locator;
  readonly rows: Locator;
  readonly errors: Locator;
  readonly picker: Locator;
  readonly empty: Locator;

  constructor(readonly page: Page) {
    this.dropZone = page.getByTestId('drop-zone');
    this.fileInput = page.getByTestId('file-input');
    this.rows = page.getByTestId('transcript-row');
    this.errors = page.getByTestId('import-error');
    this.picker = page.getByTestId('conversation-picker');
    this.empty = page.getByTestId('library-empty');
  }

  async goto(): Promise<void> {
    await this.page.goto('/');
    await settle(this.page, () => !!document.querySelector('[data-testid=transcript-row], [data-testid=library-empty]'));
    await expect(this.dropZone).toBeVisible();
    // The worker answered the first list query: either rows or the empty state are shown.
    await expect(this.rows.first().or(this.empty)).toBeVisible({ timeout: 30_000 });
  }

  /** Import a real file by path, through the file button's input (setInputFiles). */
  async importFile(path: string): Promise<void> {
    await this.fileInput.setInputFiles(path);
  }

  /** Drop a real file on the drop zone (a synthetic drag-and-drop with a DataTransfer). */
  async dropFile(path: string, name: string): Promise<void> {
    const base64 = fs.readFileSync(path).toString('base64');
    const transfer = await this.page.evaluateHandle(
      ({ base64, name }) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], name, { type: 'application/json' }));
        return dt;
      },
      { base64, name },
    );
    await this.dropZone.dispatchEvent('dragover', { dataTransfer: transfer });
    await this.dropZone.dispatchEvent('drop', { dataTransfer: transfer });
  }

  async importBuffer(name: string, text: string): Promise<void> {
    await this.fileInput.setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  }

  async paste(text: string): Promise<void> {
    await this.page.getByTestId('paste-toggle').click();
    await this.page.getByTestId('paste-box').fill(text);
    await this.page.getByTestId('paste-import').click();
  }

  async chooseConversation(index: number): Promise<void> {
    await expect(this.picker).toBeVisible();
    await this.picker.locator(`[data-testid=conversation-option][data-index="${index}"]`).click();
  }

  row(fileName: string): Locator {
    return this.rows.filter({ hasText: fileName });
  }

  /** Wait until the import finished and its row is listed; returns the row. */
  async waitForRow(fileName: string): Promise<Locator> {
    const row = this.row(fileName);
    // Looser than the assertions below (a case-insensitive substring, as `hasText` matches).
    await settle(
      this.page,
      (name: string) =>
        !document.querySelector('[data-testid=import-progress]') &&
        [...document.querySelectorAll('[data-testid=transcript-row]')].some((r) => (r.textContent ?? '').replace(/\s+/g, ' ').toLowerCase().includes(name)),
      fileName.replace(/\s+/g, ' ').trim().toLowerCase(),
    );
    await expect(row).toHaveCount(1, { timeout: 30_000 });
    await expect(this.page.getByTestId('import-progress')).toHaveCount(0);
    return row;
  }

  async rowTurns(row: Locator): Promise<number> {
    return Number(await row.getAttribute('data-turns'));
  }

  /** Import a file from the library page and open it: the set-up most inspector specs start with. */
  async openInInspector(file: string, inspector: { waitLoaded(): Promise<void> }): Promise<void> {
    await this.goto();
    await this.importFile(file);
    await this.open(await this.waitForRow(path.basename(file)));
    await inspector.waitLoaded();
  }

  async open(row: Locator): Promise<void> {
    await row.getByTestId('open-transcript').click();
  }

  async exportOriginal(row: Locator): Promise<Buffer> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), row.getByTestId('export-original').click()]);
    return fs.readFileSync((await download.path())!);
  }

  async delete(row: Locator): Promise<void> {
    await row.getByTestId('delete').click();
  }
}
