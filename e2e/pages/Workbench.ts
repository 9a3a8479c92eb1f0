import { expect, type Download, type Locator, type Page } from '@playwright/test';
import fs from 'node:fs';

/** "12,345" → 12345 (the app prints tokens with en-US thousands separators). */
export function parseTokens(text: string | null): number {
  const m = /-?[\d,]+/.exec(text ?? '');
  if (!m) throw new Error(`no number in "${text}"`);
  return Number(m[0].replace(/,/g, ''));
}

/**
 * The inspector's compaction controls (components/plan, components/report, components/export):
 * side-panel tabs, the plan (Auto with a target budget, or picked reducers), Apply / Undo, the
 * tokens before → after, the Lost tab and the export dialog.
 */
export class Workbench {
  readonly planTotal: Locator;
  readonly previewAfter: Locator;
  readonly contextAfter: Locator;
  readonly fates: Locator;

  constructor(readonly page: Page) {
    this.planTotal = page.getByTestId('plan-selection-total');
    this.previewAfter = page.getByTestId('preview-after');
    this.contextAfter = page.getByTestId('context-after');
    this.fates = page.getByTestId('message-list').getByTestId('fate-badge');
  }

  async tab(name: 'Plan' | 'Report' | 'Lost' | 'Diff' | 'Tools' | 'Versions' | 'Info'): Promise<Locator> {
    await this.page.getByRole('tab', { name, exact: true }).click();
    return this.page.getByRole('tabpanel');
  }

  async pickReducers(...ids: string[]): Promise<void> {
    await this.tab('Plan');
    await this.page.getByRole('radio', { name: 'Pick reducers' }).click();
    for (const id of ids) await this.page.getByRole('checkbox', { name: id, exact: true }).check();
  }

  /** Turns at the end that the plan never touches (the Plan panel's "Keep last N turns untouched"). */
  /** Set keep-last and wait for the preview of the new plan (the card says "previewing…" from the edit until it lands). */
  async keepLast(n: number): Promise<void> {
    await this.page.getByTestId('keep-last').fill(String(n));
    await expect(this.page.getByTestId('previewing')).toHaveCount(0, { timeout: 30_000 });
  }

  /** Auto strategy aiming at half of the current context (the panel's "50 %" button). */
  async autoHalf(): Promise<number> {
    await this.tab('Plan');
    await this.page.getByRole('radio', { name: 'Auto' }).click();
    await this.page.getByRole('button', { name: '50 %' }).click();
    return Number(await this.page.getByTestId('target-budget').inputValue());
  }

  /** Tokens before → after of the plan's preview (selection, or whole context without one). */
  async previewTokens(): Promise<{ before: number; after: number }> {
    await expect(this.previewAfter).toBeVisible({ timeout: 30_000 });
    await expect(this.page.getByText('previewing…')).toHaveCount(0, { timeout: 30_000 });
    const before = parseTokens(await this.planTotal.locator('span').first().textContent());
    const after = parseTokens(await this.previewAfter.textContent());
    return { before, after };
  }

  /** The shown version's context (the file's part): "name: context from the file BEFORE → AFTER (…)". */
  async contextTokens(): Promise<{ before: number; after: number }> {
    await expect(this.contextAfter).toBeVisible({ timeout: 30_000 });
    const text = (await this.contextAfter.textContent()) ?? '';
    const m = /context from the file\s+([\d,]+)\s*→\s*([\d,]+)/.exec(text);
    if (!m) throw new Error(`context-after reads "${text}"`);
    return { before: parseTokens(m[1]), after: parseTokens(m[2]) };
  }

  async apply(): Promise<void> {
    await this.page.getByRole('button', { name: 'Apply', exact: true }).click();
  }

  async undo(): Promise<void> {
    await this.page.getByRole('button', { name: 'Undo', exact: true }).click();
  }

  /** Open the export dialog, keep the proposed (source) format, download; returns name and bytes. */
  async exportShownVersion(): Promise<{ name: string; bytes: Buffer; format: string }> {
    await this.page.getByTestId('export').click();
    // The formats come from the worker: the select is empty until they do.
    const select = this.page.getByTestId('export-format');
    await expect(select).not.toHaveValue('');
    const format = await select.inputValue();
    // The dialog exports the version the page shows (it follows it while open): wait until it does.
    await expect(this.page.getByTestId('export-version')).toHaveValue((await this.page.getByTestId('inspector').getAttribute('data-version')) ?? '');
    // The audit sidecar downloads beside the transcript, in either order: wait for the transcript.
    const [download] = await Promise.all([
      this.page.waitForEvent('download', { predicate: (d) => !d.suggestedFilename().endsWith('.audit.json') }),
      this.page.getByTestId('export-download').click(),
    ]);
    return { name: download.suggestedFilename(), bytes: await read(download), format };
  }
}

async function read(download: Download): Promise<Buffer> {
  return fs.readFileSync((await download.path())!);
}
