/**
 * The compaction layer of the timeline, a canvas between the bars and the selection overlay:
 * - a preview or a compacted version: each bar redrawn as what remains (solid, by kind) with what
 *   compaction took out stacked above it by fate, as patterns (patterns.ts);
 * - budget lines (UI.md): input budget = window − max output dashed red, a peer's auto trigger
 *   dotted amber, the user's target budget dashed teal (the window itself is on the base layer);
 * - our summaries as teal bands over the span they replace;
 * - two versions' context curves when comparing.
 * Culled to the visible window like the base layer, with the same bar picking (one per column).
 */
import type { PreviewSummary } from '@/lib/engine/preview';
import { SAVED_FATES } from '@/lib/engine/preview-kinds';
import { BUDGET_KINDS, type BudgetKind } from '@/lib/tokens/totals';
import { KIND_STYLE, STACK_ORDER } from '../ui/kinds';
import { formatTokens } from '../ui/format';
import { HEIGHT, PAD, xOfIndex, yOfTokens, type Geometry } from './draw';
import { indexRangeOfTurns, KINDS, visibleBars, type PackedTimeline } from './packed';
import { drawFateSegment } from './patterns';

export interface BudgetLines {
  /** window − max output of the chosen model. */
  inputBudget?: number;
  /** A peer's auto-compaction trigger. */
  trigger?: { tokens: number; label: string };
  /** The user's target budget (auto). */
  target?: number;
}

export interface CompareCurves {
  a: { name: string; curve: Float64Array };
  b: { name: string; curve: Float64Array };
}

/** A replayed policy's prompt per bar (NaN where no call of it falls), with where it compacted (issue 14). */
export interface PolicyCurve {
  id: string;
  color: string;
  values: Float64Array;
  fired: Uint8Array;
}

export interface CompactionLayerInput {
  packed: PackedTimeline;
  scale: { max: number };
  overhead: number;
  dark: boolean;
  preview: PreviewSummary | null;
  lines: BudgetLines;
  compare: CompareCurves | null;
  policies?: readonly PolicyCurve[];
}

const TEAL = '#14b8a6';
const RED = '#dc2626';
const AMBER = '#d97706';

const kindIndex = new Map<BudgetKind, number>(BUDGET_KINDS.map((k, i) => [k, i]));

export function drawCompactionLayer(g: CanvasRenderingContext2D, geo: Geometry, input: CompactionLayerInput): void {
  const { packed, scale, preview, dark } = input;
  const { plotW, plotH, view, slot } = geo;
  const dpr = window.devicePixelRatio || 1;
  const yOf = yOfTokens(geo, scale.max);
  const ink = dark ? '#d4d4d4' : '#404040';
  const background = dark ? '#0b0f14' : '#ffffff';
  const clipRight = PAD.left + plotW;
  g.save();
  g.beginPath();
  g.rect(PAD.left, 0, plotW, HEIGHT);
  g.clip();

  const bars = visibleBars(packed, view, plotW);
  const perColumn = bars.length < view.end - view.start + 1;
  const colW = perColumn ? plotW / Math.max(1, bars.length) : slot;
  const barW = perColumn ? Math.max(1, colW) : slot >= 4 ? Math.max(1, slot * 0.78) : Math.max(0.5, slot);
  const barX = (j: number) => (perColumn ? PAD.left + j * colW : xOfIndex(geo, bars[j]) + (slot - barW) / 2);

  if (preview && preview.turns > 0) {
    const K = preview.kinds.length;
    const F = SAVED_FATES.length;
    // Our summaries: a teal band over the turns each one replaces.
    for (const s of preview.summaries) {
      const r = indexRangeOfTurns(packed, s.span[0], s.span[1]);
      if (!r) continue;
      const x0 = xOfIndex(geo, r[0]);
      const w = Math.max(1, (r[1] - r[0] + 1) * slot);
      g.fillStyle = 'rgba(20,184,166,0.10)';
      g.fillRect(x0, PAD.top, w, plotH);
      g.fillStyle = TEAL;
      g.fillRect(x0, PAD.top, w, 3);
    }
    for (let j = 0; j < bars.length; j++) {
      const i = bars[j];
      const t = packed.turnNo[i];
      if (t >= preview.turns) continue;
      const x = barX(j);
      const originalTop = packed.tops[i * KINDS + KINDS - 1];
      // Cover the original bar, then draw what remains and what was taken out.
      g.fillStyle = background;
      g.fillRect(x - 0.5, yOf(originalTop) - 1, barW + 1, yOf(0) - yOf(originalTop) + 1);
      let acc = 0;
      for (let k = 0; k < KINDS; k++) {
        const kind = STACK_ORDER[k];
        const base = packed.tops[i * KINDS + k] - (k === 0 ? 0 : packed.tops[i * KINDS + k - 1]);
        const v = kind === 'overhead' ? base : base + preview.delta[t * K + kindIndex.get(kind)!];
        if (!(v > 0)) continue;
        const y0 = yOf(acc);
        const y1 = yOf(acc + v);
        g.fillStyle = KIND_STYLE[kind].color;
        g.fillRect(x, y1, barW, Math.max(0.5, y0 - y1));
        acc += v;
      }
      for (let f = 0; f < F; f++) {
        const v = preview.saved[t * F + f];
        if (!(v > 0)) continue;
        const y0 = yOf(acc);
        const y1 = yOf(acc + v);
        drawFateSegment(g, SAVED_FATES[f], x, y1, barW, Math.max(0.5, y0 - y1), ink, TEAL, dpr);
        acc += v;
      }
    }
  }

  if (input.compare) {
    const curves: Array<[CompareCurves['a'], string, number[]]> = [
      [input.compare.a, dark ? '#e5e5e5' : '#171717', [4, 3]],
      [input.compare.b, '#2563eb', []],
    ];
    for (const [c, color, dash] of curves) {
      g.strokeStyle = color;
      g.lineWidth = 2;
      g.setLineDash(dash);
      g.beginPath();
      let started = false;
      for (let j = 0; j < bars.length; j++) {
        const t = packed.turnNo[bars[j]];
        if (t >= c.curve.length) continue;
        const x = barX(j) + barW / 2;
        const y = yOf(packed.tops[bars[j] * KINDS + KINDS - 1] + c.curve[t]);
        if (!started) g.moveTo(x, y);
        else g.lineTo(x, y);
        started = true;
      }
      g.stroke();
    }
    g.setLineDash([]);
  }
  // Replayed policies: each one's prompt per call as a line, a ring where it compacted.
  for (const pc of input.policies ?? []) {
    g.strokeStyle = pc.color;
    g.lineWidth = 1.75;
    g.beginPath();
    let started = false;
    for (let j = 0; j < bars.length; j++) {
      const v = pc.values[bars[j]];
      if (!(v >= 0)) continue;
      const x = barX(j) + barW / 2;
      const y = yOf(v);
      if (!started) g.moveTo(x, y);
      else g.lineTo(x, y);
      started = true;
    }
    g.stroke();
    for (let j = 0; j < bars.length; j++) {
      if (!pc.fired[bars[j]] || !(pc.values[bars[j]] >= 0)) continue;
      g.beginPath();
      g.arc(barX(j) + barW / 2, yOf(pc.values[bars[j]]), 3.5, 0, Math.PI * 2);
      g.fillStyle = dark ? '#171717' : '#ffffff';
      g.fill();
      g.stroke();
    }
  }
  g.restore();

  // Budget lines, labelled at the left edge of the plot (the window's label is on the right).
  g.font = '10px ui-sans-serif, system-ui, sans-serif';
  // Labels never overlap: each is moved right past any label already drawn where it would go
  // (lines above the scale are named along the top edge, the others just above their line).
  const place = labelPlacer();
  const line = (value: number | undefined, color: string, dash: number[], label: string, width = 1.25) => {
    if (value === undefined || !(value > 0)) return;
    if (value > scale.max) {
      const text = `${label} ↑`;
      const w = g.measureText(text).width;
      const x = place(PAD.left + 4, 0, 13, w);
      g.fillStyle = color;
      g.textAlign = 'left';
      g.textBaseline = 'top';
      g.fillText(text, x, 1);
      return;
    }
    const y = Math.round(yOf(value)) + 0.5;
    g.save();
    g.strokeStyle = color;
    g.lineWidth = width;
    g.setLineDash(dash);
    g.beginPath();
    g.moveTo(PAD.left, y);
    g.lineTo(clipRight, y);
    g.stroke();
    g.restore();
    g.textAlign = 'left';
    g.textBaseline = 'bottom';
    const w = g.measureText(label).width;
    const x = place(PAD.left + 3, y - 13, y - 1, w + 4);
    g.fillStyle = dark ? 'rgba(11,15,20,0.8)' : 'rgba(255,255,255,0.85)';
    g.fillRect(x, y - 13, w + 4, 12);
    g.fillStyle = color;
    g.fillText(label, x + 2, y - 2);
  };
  const { lines } = input;
  line(lines.inputBudget, RED, [6, 4], `input budget ${formatTokens(lines.inputBudget ?? 0)}`);
  line(lines.trigger?.tokens, AMBER, [1.5, 3], `${lines.trigger?.label ?? 'auto'} trigger ${formatTokens(lines.trigger?.tokens ?? 0)}`, 1.5);
  // The target is for what the file holds; the bars also stack the invisible overhead, so the line
  // stands where a context that meets the target would reach.
  if (lines.target !== undefined) {
    const over = input.overhead > 0 ? ` + ${formatTokens(input.overhead)} overhead` : '';
    line(lines.target + input.overhead, TEAL, [6, 4], `target ${formatTokens(lines.target)}${over}`, 1.5);
  }
}

/**
 * Places labels left to right without overlap: `place(x, y0, y1, width)` returns the x where a label
 * wanted at `x` goes — moved right past every label already placed whose box it would overlap.
 */
export function labelPlacer(gap = 8): (x: number, y0: number, y1: number, width: number) => number {
  const placed: Array<{ x0: number; x1: number; y0: number; y1: number }> = [];
  return (x, y0, y1, width) => {
    for (let moved = true; moved; ) {
      moved = false;
      for (const r of placed)
        if (x < r.x1 && x + width > r.x0 && y0 < r.y1 && y1 > r.y0) {
          x = r.x1 + gap;
          moved = true;
        }
    }
    placed.push({ x0: x, x1: x + width, y0, y1 });
    return x;
  };
}

/** The y-axis top that keeps every budget line worth seeing on scale. */
export function scaleWithLines(dataMax: number, current: number, lines: BudgetLines, overhead = 0): number {
  let max = current;
  for (const v of [lines.target === undefined ? undefined : lines.target + overhead, lines.trigger?.tokens, lines.inputBudget]) if (v !== undefined && v > max && v <= dataMax * 4) max = v * 1.05;
  return max;
}
