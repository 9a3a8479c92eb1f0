import { expect, type Locator, type Page } from '@playwright/test';
import fs from 'node:fs';
import { settle } from './settle';

/** The inspector (`/inspect?id=…`): top bar, canvas timeline, message list, side panel. */
export class InspectorPage {
  readonly timeline: Locator;
  readonly title: Locator;
  readonly messages: Locator;
  readonly list: Locator;

  constructor(readonly page: Page) {
    this.timeline = page.getByTestId('timeline');
    this.title = page.getByTestId('inspector-title');
    this.messages = page.getByTestId('message');
    this.list = page.getByTestId('message-list');
  }

  async waitLoaded(): Promise<void> {
    await settle(this.page, () => location.pathname.startsWith('/inspect') && !!document.querySelector('[data-testid=timeline]') && !!document.querySelector('[data-testid=message]'));
    await expect(this.page).toHaveURL(/\/inspect\?id=/);
    await expect(this.timeline).toBeVisible({ timeout: 30_000 });
    await expect(this.messages.first()).toBeVisible({ timeout: 30_000 });
  }

  /**
   * Show the turn axis (one bar per turn). Agent runs open on the call axis by themselves (fewer
   * than 8 turns, more calls than turns); specs about turns switch with the toggle, as a user does.
   */
  async useTurnAxis(): Promise<void> {
    const toggle = this.page.getByTestId('axis-toggle');
    if ((await toggle.getAttribute('data-axis')) === 'calls') await this.page.getByRole('radio', { name: /^Turns/ }).click();
    await expect(this.timeline).toHaveAttribute('data-unit', 'turn');
  }

  async turns(): Promise<number> {
    return Number(await this.timeline.getAttribute('data-turns'));
  }

  /** Click the bar of a 0-based turn index on the canvas. */
  async clickTurn(index: number): Promise<void> {
    const box = (await this.timeline.boundingBox())!;
    const n = await this.turns();
    const left = 52;
    const plot = box.width - left - 14;
    await this.page.mouse.click(box.x + left + ((index + 0.5) / n) * plot, box.y + 150);
  }

  async hoverTurn(index: number): Promise<Locator> {
    const box = (await this.timeline.boundingBox())!;
    const n = await this.turns();
    const plot = box.width - 52 - 14;
    await this.page.mouse.move(box.x + 52 + ((index + 0.5) / n) * plot, box.y + 150);
    return this.page.getByTestId('timeline-hover');
  }

  async export(): Promise<Buffer> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.page.getByTestId('export').click()]);
    return fs.readFileSync((await download.path())!);
  }

  async backToLibrary(): Promise<void> {
    await this.page.getByTestId('back-to-library').click();
  }
}
