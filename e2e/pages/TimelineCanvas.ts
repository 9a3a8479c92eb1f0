import { expect, type Locator, type Page } from '@playwright/test';

/** Plot margins of the timeline canvas (components/timeline/TimelineChart.tsx PAD). */
const PLOT_LEFT = 52;
const PLOT_RIGHT = 14;

/**
 * The timeline canvas driven with the real mouse and keyboard: drag-select, wheel zoom, shift-drag
 * pan, keys. Positions are computed from the canvas box and the visible turn window the chart
 * publishes (`data-view="first-last"`, 0-based inclusive), so they hold at any zoom.
 */
export class TimelineCanvas {
  readonly wrap: Locator;
  readonly canvas: Locator;

  constructor(readonly page: Page) {
    this.wrap = page.getByTestId('timeline');
    this.canvas = page.getByTestId('timeline-canvas');
  }

  async view(): Promise<[number, number]> {
    const v = (await this.wrap.getAttribute('data-view')) ?? '';
    const m = /^(\d+)-(\d+)$/.exec(v);
    if (!m) throw new Error(`timeline data-view is "${v}"`);
    return [Number(m[1]), Number(m[2])];
  }

  /** The committed selection (0-based inclusive turn indexes), or null. */
  async selection(): Promise<[number, number] | null> {
    const v = (await this.wrap.getAttribute('data-selection')) ?? '';
    const m = /^(\d+)-(\d+)$/.exec(v);
    return m ? [Number(m[1]), Number(m[2])] : null;
  }

  /** Page coordinates of the middle of turn index `i` within the current view. */
  async pointOf(i: number): Promise<{ x: number; y: number }> {
    const box = (await this.canvas.boundingBox())!;
    const [a, b] = await this.view();
    const plot = box.width - PLOT_LEFT - PLOT_RIGHT;
    return { x: box.x + PLOT_LEFT + ((i - a + 0.5) / (b - a + 1)) * plot, y: box.y + box.height / 2 };
  }

  /** Drag with the mouse from turn index `from` to `to` (in `steps` moves) and release. */
  async dragSelect(from: number, to: number, steps = 12): Promise<void> {
    const p = await this.pointOf(from);
    const q = await this.pointOf(to);
    await this.page.mouse.move(p.x, p.y);
    await this.page.mouse.down();
    await this.page.mouse.move(q.x, q.y, { steps });
    await this.page.mouse.up();
  }

  /** Wheel over the canvas at fraction `at` of the plot width (negative deltaY zooms in). */
  async wheel(deltaY: number, at = 0.5): Promise<void> {
    const box = (await this.canvas.boundingBox())!;
    await this.page.mouse.move(box.x + PLOT_LEFT + at * (box.width - PLOT_LEFT - PLOT_RIGHT), box.y + box.height / 2);
    await this.page.mouse.wheel(0, deltaY);
  }

  /** Shift-drag by `dx` pixels: pans the zoomed window. */
  async pan(dx: number, steps = 10): Promise<void> {
    const box = (await this.canvas.boundingBox())!;
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    await this.page.keyboard.down('Shift');
    await this.page.mouse.move(x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + dx, y, { steps });
    await this.page.mouse.up();
    await this.page.keyboard.up('Shift');
  }

  async expectSelection(range: [number, number]): Promise<void> {
    await expect(this.wrap).toHaveAttribute('data-selection', `${range[0]}-${range[1]}`);
  }
}
