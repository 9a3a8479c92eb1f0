import { expect, type Locator, type Page } from '@playwright/test';

/**
 * The inspector's totals panel (components/inspector/SidePanel.tsx): tokens in the log, recorded
 * usage, the source's own compactions. The panel is shown beside the message list, or under the
 * "Info" tab once the side panel is a tab list (components/inspector/InspectorTabs.tsx): both work.
 */
export class TranscriptTotals {
  readonly panel: Locator;
  readonly tokenTotal: Locator;
  readonly usage: Locator;
  readonly compactions: Locator;
  /** The timeline's legend: names the layers actually drawn on the canvas. */
  readonly legend: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId('side-panel');
    this.tokenTotal = this.panel.getByTestId('token-total');
    this.usage = this.panel.getByTestId('recorded-usage');
    this.compactions = this.panel.getByTestId('source-compaction');
    this.legend = page.getByRole('list', { name: 'Legend' });
  }

  /** Bring the panel into view (select the Info tab when there is one) and wait for it. */
  async show(): Promise<void> {
    const infoTab = this.page.locator('[role=tab][data-tab="Info"]');
    if ((await infoTab.count()) > 0) await infoTab.click();
    await expect(this.panel).toBeVisible();
  }

  async tokens(): Promise<number> {
    return Number(await this.tokenTotal.getAttribute('data-tokens'));
  }

  async modelCalls(): Promise<number> {
    return Number(await this.usage.getAttribute('data-calls'));
  }
}
