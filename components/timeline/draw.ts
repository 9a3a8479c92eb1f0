/**
 * Canvas drawing of the timeline, in two layers so a pointer move never repaints the bars:
 * - base: grid, source compaction bands, stacked bars, context window, recorded context, x labels;
 * - overlay: selection (or the drag in progress), hover and cursor columns, search hits.
 * Both are culled to the visible turn window; the bars are at most one per pixel column.
 */
import type { TimelineBand } from '@/lib/engine/timeline';
import { KIND_STYLE, STACK_ORDER } from '../ui/kinds';
import { formatCompact, formatTokens } from '../ui/format';
import { indexRangeOfTurns, KINDS, visibleBars, type PackedTimeline } from './packed';
import { lowerBound, niceStep, type TurnView } from './scale';

export const HEIGHT = 210;
export const PAD = { left: 52, right: 14, top: 14, bottom: 22 };

export interface Geometry {
  width: number;
  plotW: number;
  plotH: number;
  view: TurnView;
  /** Pixels per bar in the current view (may be < 1 when zoomed out over many turns). */
  slot: number;
}

export function geometry(width: number, view: TurnView): Geometry {
  const plotW = Math.max(1, width - PAD.left - PAD.right);
  const span = Math.max(1, view.end - view.start + 1);
  return { width, plotW, plotH: HEIGHT - PAD.top - PAD.bottom, view, slot: plotW / span };
}

/** Left x of bar index `i` (may lie outside the plot when `i` is outside the view). */
export function xOfIndex(geo: Geometry, i: number): number {
  return PAD.left + (i - geo.view.start) * geo.slot;
}

/** The y of a token count on the plot, for a y-axis topped at `max`. */
export function yOfTokens(geo: Pick<Geometry, 'plotH'>, max: number): (v: number) => number {
  return (v) => PAD.top + geo.plotH - (v / max) * geo.plotH;
}

/**
 * Prepare a canvas for drawing at the device pixel ratio (resized only when needed); returns its
 * context, cleared (`clear: false`: as it is, for a draw that clears its own parts, drawBaseStrip).
 */
export function prepareCanvas(c: HTMLCanvasElement, width: number, height = HEIGHT, clear = true): CanvasRenderingContext2D | null {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(width * dpr);
  const h = Math.round(height * dpr);
  if (c.width !== w) c.width = w;
  if (c.height !== h) c.height = h;
  const g = c.getContext('2d');
  if (!g) return null;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (clear) g.clearRect(0, 0, width, height);
  return g;
}

export interface BaseLayer {
  packed: PackedTimeline;
  bands: readonly TimelineBand[];
  scale: { max: number; windowOnScale: boolean };
  dark: boolean;
}

/** What one draw of the base layer paints, worked out once: its strips and its margins then paint it a piece at a time. */
export interface BasePlan {
  geo: Geometry;
  layer: BaseLayer;
  yOf: (v: number) => number;
  bars: Int32Array;
  barW: number;
  barX: (j: number) => number;
  /** Top of the x labels' band (below the plot and its zero line). */
  labelTop: number;
}

export function planBase(geo: Geometry, layer: BaseLayer): BasePlan {
  const { plotW, view, slot } = geo;
  const bars = visibleBars(layer.packed, view, plotW);
  const perColumn = bars.length < view.end - view.start + 1;
  const colW = perColumn ? plotW / bars.length : slot;
  const barW = perColumn ? Math.max(1, colW) : slot >= 4 ? Math.max(1, slot * 0.78) : Math.max(0.5, slot);
  const barX = (j: number) => (perColumn ? PAD.left + j * colW : xOfIndex(geo, bars[j]) + (slot - barW) / 2);
  return { geo, layer, yOf: yOfTokens(geo, layer.scale.max), bars, barW, barX, labelTop: PAD.top + geo.plotH + 2 };
}

/**
 * The plot's columns [x0, x1) (whole CSS pixels, within the plot), cleared, then drawn as the
 * whole layer would draw them there: grid, source compaction bands, stacked bars, recorded line,
 * each clipped to the strip. The strips side by side paint what one draw of the plot does (the same
 * shapes in the same order over each pixel), so the base layer can be painted a strip per frame
 * (issue 31: one draw of every bar, raster included, was a task of 92–160 ms CPU) with the old
 * picture kept until each strip is replaced.
 */
export function drawBaseStrip(g: CanvasRenderingContext2D, plan: BasePlan, x0: number, x1: number): void {
  const { geo, layer, yOf, bars, barW, barX } = plan;
  const { packed, scale, dark } = layer;
  const { plotW, plotH, view, slot } = geo;
  const ink = dark ? '#e5e5e5' : '#171717';
  const grid = dark ? 'rgba(255,255,255,0.07)' : 'rgba(0,0,0,0.07)';
  const clipRight = PAD.left + plotW;
  g.save();
  g.beginPath();
  g.rect(x0, 0, x1 - x0, plan.labelTop);
  g.clip();
  g.clearRect(x0, 0, x1 - x0, plan.labelTop);

  const step = niceStep(scale.max);
  g.strokeStyle = grid;
  g.lineWidth = 1;
  for (let v = 0; v <= scale.max; v += step) {
    const y = Math.round(yOf(v)) + 0.5;
    g.beginPath();
    g.moveTo(PAD.left, y);
    g.lineTo(clipRight, y);
    g.stroke();
  }

  // Compaction bands the source recorded (turn numbers → bar indexes; only those in view).
  g.font = '10px ui-sans-serif, system-ui, sans-serif';
  for (const band of layer.bands) {
    if (band.coversTurns) {
      const r = indexRangeOfTurns(packed, band.coversTurns[0], band.coversTurns[1]);
      if (r && r[1] >= view.start && r[0] <= view.end) {
        g.fillStyle = 'rgba(20,184,166,0.10)';
        g.fillRect(xOfIndex(geo, r[0]), PAD.top, (r[1] - r[0] + 1) * slot, plotH);
      }
    }
    const at = indexRangeOfTurns(packed, band.atTurn, Number.MAX_SAFE_INTEGER);
    if (!at || at[0] < view.start || at[0] > view.end) continue;
    const x = Math.round(xOfIndex(geo, at[0])) + 0.5;
    g.strokeStyle = KIND_STYLE.summary.color;
    g.lineWidth = 2;
    g.beginPath();
    g.moveTo(x, PAD.top);
    g.lineTo(x, PAD.top + plotH);
    g.stroke();
    g.fillStyle = KIND_STYLE.summary.color;
    g.textAlign = 'left';
    g.textBaseline = 'top';
    g.fillText(`compacted${band.trigger ? ` (${band.trigger})` : ''}`, x + 3, PAD.top + 2);
  }

  // The bars that reach into the strip (the plot's x grows with j), two more each side for the line.
  let ja = 0;
  while (ja < bars.length && barX(ja) + barW <= x0) ja++;
  let jb = ja;
  while (jb < bars.length && barX(jb) < x1) jb++;
  // Stacked bars: one fill colour at a time over the strip's bars (≤ one per pixel column).
  for (let k = 0; k < KINDS; k++) {
    g.fillStyle = KIND_STYLE[STACK_ORDER[k]].color;
    for (let j = ja; j < jb; j++) {
      const base = bars[j] * KINDS;
      const lo = k === 0 ? 0 : packed.tops[base + k - 1];
      const hi = packed.tops[base + k];
      if (hi <= lo) continue;
      const y0 = yOf(lo);
      const y1 = yOf(hi);
      g.fillRect(barX(j), y1, barW, Math.max(0.5, y0 - y1));
    }
  }

  // Recorded context size from usage: a thin line in the ink colour, dots when bars are wide.
  if (packed.hasRecorded) {
    const la = Math.max(0, ja - 2);
    const lb = Math.min(bars.length, jb + 2);
    g.strokeStyle = ink;
    g.lineWidth = 1;
    g.beginPath();
    let started = false;
    for (let j = la; j < lb; j++) {
      const r = packed.recorded[bars[j]];
      if (Number.isNaN(r)) continue;
      const x = barX(j) + barW / 2;
      // Fit to data scales to the bars: a recorded size above them runs along the top edge.
      const y = yOf(Math.min(r, scale.max));
      if (!started) g.moveTo(x, y);
      else g.lineTo(x, y);
      started = true;
    }
    g.stroke();
    if (slot >= 5) {
      g.fillStyle = ink;
      for (let j = la; j < lb; j++) {
        const r = packed.recorded[bars[j]];
        if (!Number.isNaN(r)) g.fillRect(barX(j) + barW / 2 - 1.5, yOf(Math.min(r, scale.max)) - 1.5, 3, 3);
      }
    }
  }
  g.restore();
}

/** The margins, cleared, then their labels: the y-axis's (left) and the turn numbers under the plot. */
export function drawBaseAxes(g: CanvasRenderingContext2D, plan: BasePlan): void {
  const { geo, layer, yOf, labelTop } = plan;
  const { packed, scale } = layer;
  const { plotW, view, slot, width } = geo;
  const muted = '#737373';
  const clipRight = PAD.left + plotW;
  g.clearRect(0, 0, PAD.left, labelTop);
  g.clearRect(clipRight, 0, Math.max(0, width - clipRight), labelTop);
  g.clearRect(0, labelTop, width, HEIGHT - labelTop);
  g.font = '10px ui-sans-serif, system-ui, sans-serif';
  g.fillStyle = muted;
  g.textBaseline = 'middle';
  g.textAlign = 'right';
  const step = niceStep(scale.max);
  for (let v = 0; v <= scale.max; v += step) g.fillText(formatCompact(v), PAD.left - 6, Math.round(yOf(v)) + 0.5);

  // X labels: turn numbers of the visible window, spaced to stay legible.
  g.textAlign = 'center';
  g.textBaseline = 'top';
  const every = Math.max(1, Math.ceil(niceStep(Math.max(1, Math.ceil(44 / slot)), 1)));
  for (let i = Math.ceil(view.start / every) * every; i <= view.end; i += every) {
    g.fillText(String(packed.turnNo[i] + 1), xOfIndex(geo, i) + slot / 2, PAD.top + geo.plotH + 5);
  }
}

/** Whole-pixel edges splitting the plot into strips of about `stripPx` CSS pixels (first = PAD.left, last = the plot's right edge). */
export function stripEdges(geo: Geometry, stripPx: number): number[] {
  const right = PAD.left + Math.ceil(geo.plotW);
  const count = Math.max(1, Math.ceil((right - PAD.left) / Math.max(1, stripPx)));
  const edges: number[] = [];
  for (let i = 0; i <= count; i++) edges.push(PAD.left + Math.round(((right - PAD.left) * i) / count));
  return edges;
}

/** The base layer in one go (the strips side by side, then the margins), on a cleared canvas. */
export function drawBase(g: CanvasRenderingContext2D, geo: Geometry, layer: BaseLayer): void {
  const plan = planBase(geo, layer);
  const edges = stripEdges(geo, geo.plotW);
  for (let i = 0; i + 1 < edges.length; i++) drawBaseStrip(g, plan, edges[i], edges[i + 1]);
  drawBaseAxes(g, plan);
}

export interface OverlayLayer {
  /** Bar index ranges and positions; null when absent. */
  selection: [number, number] | null;
  hover: number | null;
  cursor: number | null;
  /** Bars holding search hits (ascending), drawn as ticks above the plot; the current hit's bar. */
  hits?: Int32Array;
  activeHit?: number | null;
  dark: boolean;
}

/** Search hits as ticks in the top margin: at most one per pixel column, culled to the view. */
function drawHits(g: CanvasRenderingContext2D, geo: Geometry, hits: Int32Array, active: number | null | undefined, dark: boolean): void {
  const { view, slot } = geo;
  const w = Math.max(2, Math.min(6, slot));
  g.fillStyle = dark ? '#facc15' : '#eab308';
  let lastX = -Infinity;
  for (let k = lowerBound(hits, view.start); k < hits.length && hits[k] <= view.end; k++) {
    const x = Math.round(xOfIndex(geo, hits[k]) + slot / 2 - w / 2);
    if (x === lastX) continue;
    lastX = x;
    g.fillRect(x, PAD.top - 7, w, 5);
  }
  if (active !== null && active !== undefined && active >= view.start && active <= view.end) {
    g.fillStyle = dark ? '#fde047' : '#a16207';
    const x = Math.round(xOfIndex(geo, active) + slot / 2);
    g.beginPath();
    g.moveTo(x - 5, PAD.top - 10);
    g.lineTo(x + 5, PAD.top - 10);
    g.lineTo(x, PAD.top - 2);
    g.closePath();
    g.fill();
  }
}

export function drawOverlay(g: CanvasRenderingContext2D, geo: Geometry, layer: OverlayLayer): void {
  const { plotW, plotH, view, slot } = geo;
  g.save();
  g.beginPath();
  g.rect(PAD.left, 0, plotW, HEIGHT);
  g.clip();
  if (layer.selection) {
    const a = Math.max(view.start, layer.selection[0]);
    const b = Math.min(view.end, layer.selection[1]);
    if (a <= b) {
      g.fillStyle = layer.dark ? 'rgba(59,130,246,0.22)' : 'rgba(59,130,246,0.16)';
      g.fillRect(xOfIndex(geo, a), PAD.top, Math.max(1, (b - a + 1) * slot), plotH);
      g.strokeStyle = '#3b82f6';
      g.lineWidth = 1;
      g.strokeRect(Math.round(xOfIndex(geo, a)) + 0.5, PAD.top + 0.5, Math.max(1, Math.round((b - a + 1) * slot) - 1), plotH - 1);
    }
  }
  for (const i of [layer.hover, layer.cursor]) {
    if (i === null || i < view.start || i > view.end) continue;
    g.fillStyle = layer.dark ? 'rgba(255,255,255,0.18)' : 'rgba(0,0,0,0.10)';
    g.fillRect(xOfIndex(geo, i), PAD.top, Math.max(1, slot), plotH);
  }
  g.restore();
  if (layer.hits && layer.hits.length > 0) {
    // Above the plot (its top margin), so the clip to the plot is lifted but the sides still hold.
    g.save();
    g.beginPath();
    g.rect(PAD.left, 0, plotW, PAD.top);
    g.clip();
    drawHits(g, geo, layer.hits, layer.activeHit, layer.dark);
    g.restore();
  }
}

/**
 * The context window: a solid red line; returns its name for drawLineLabels (at the top when the
 * line is off scale). Drawn on the compaction layer, not the base: switching the model moves it,
 * and a redraw of the base (every bar: 30 ms at 100k turns) made the switch a 50 ms frame on a
 * busy machine.
 */
export function drawContextWindow(
  g: CanvasRenderingContext2D,
  geo: Geometry,
  scale: { max: number; windowOnScale: boolean },
  contextWindow: number | undefined,
): { text: string; color: string; lineY: number | null; align: 'right' } | null {
  if (!contextWindow) return null;
  const color = '#dc2626';
  if (!scale.windowOnScale) return { text: `context window ${formatTokens(contextWindow)} ↑ (off scale)`, color, lineY: null, align: 'right' };
  const y = Math.round(yOfTokens(geo, scale.max)(contextWindow)) + 0.5;
  g.save();
  g.strokeStyle = color;
  g.lineWidth = 1.5;
  g.beginPath();
  g.moveTo(PAD.left, y);
  g.lineTo(PAD.left + geo.plotW, y);
  g.stroke();
  g.restore();
  return { text: `context window ${formatTokens(contextWindow)}`, color, lineY: y, align: 'right' };
}
