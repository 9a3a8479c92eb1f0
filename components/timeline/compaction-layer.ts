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
import { drawContextWindow, HEIGHT, PAD, xOfIndex, yOfTokens, type Geometry } from './draw';
import { indexRangeOfTurns, KINDS, visibleBars, type PackedTimeline } from './packed';
import { drawFateSegments, fillRects } from './patterns';

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

export function drawCompactionLayer(g: CanvasRenderingContext2D, geo: Geometry, input: CompactionLayerInput): LineLabel[] {
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
    // Each bar covered, then what remains by kind and what was taken out by fate. The rects are
    // gathered by style and each style is set once: a style change (a CSS colour parsed) and a
    // save/restore per segment of every bar was most of the script of the frame that shows a
    // preview at 3,000 turns (profiled: fillRect and save ~40 % of its samples). Bars do not
    // overlap, so only the covers must go first.
    const cover: number[] = [];
    const byKind: number[][] = STACK_ORDER.map(() => []);
    const byFate: number[][] = SAVED_FATES.map(() => []);
    const kindAt = STACK_ORDER.map((kind) => (kind === 'overhead' ? -1 : kindIndex.get(kind)!));
    for (let j = 0; j < bars.length; j++) {
      const i = bars[j];
      const t = packed.turnNo[i];
      if (t >= preview.turns) continue;
      const x = barX(j);
      const originalTop = packed.tops[i * KINDS + KINDS - 1];
      cover.push(x - 0.5, yOf(originalTop) - 1, barW + 1, yOf(0) - yOf(originalTop) + 1);
      let acc = 0;
      for (let k = 0; k < KINDS; k++) {
        const base = packed.tops[i * KINDS + k] - (k === 0 ? 0 : packed.tops[i * KINDS + k - 1]);
        const v = kindAt[k] < 0 ? base : base + preview.delta[t * K + kindAt[k]];
        if (!(v > 0)) continue;
        const y0 = yOf(acc);
        const y1 = yOf(acc + v);
        byKind[k].push(x, y1, barW, Math.max(0.5, y0 - y1));
        acc += v;
      }
      for (let f = 0; f < F; f++) {
        const v = preview.saved[t * F + f];
        if (!(v > 0)) continue;
        const y0 = yOf(acc);
        const y1 = yOf(acc + v);
        byFate[f].push(x, y1, barW, Math.max(0.5, y0 - y1));
        acc += v;
      }
    }
    fillRects(g, background, cover);
    for (let k = 0; k < KINDS; k++) fillRects(g, KIND_STYLE[STACK_ORDER[k]].color, byKind[k]);
    for (let f = 0; f < F; f++) drawFateSegments(g, SAVED_FATES[f], byFate[f], barW, ink, TEAL, dpr);
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

  // Budget lines; their labels are laid out with the window's by drawLineLabels (drawn last).
  const labels: LineLabel[] = [];
  const line = (value: number | undefined, color: string, dash: number[], label: string, width = 1.25) => {
    if (value === undefined || !(value > 0)) return;
    if (value > scale.max) {
      labels.push({ text: `${label} ↑`, color, lineY: null, align: 'left' });
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
    labels.push({ text: label, color, lineY: y, align: 'left' });
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
  return labels;
}

/** A horizontal line's name: drawn just above the line (`lineY`), or along the top edge when the line is off scale (null). */
export interface LineLabel {
  text: string;
  color: string;
  lineY: number | null;
  /** Left: at the plot's left edge; right: ending at its right edge (the context window). */
  align: 'left' | 'right';
}

export interface LabelBox {
  x: number;
  top: number;
  width: number;
  height: number;
}

export const LABEL_HEIGHT = 12;

function overlaps(a: LabelBox, b: LabelBox): boolean {
  return a.x < b.x + b.width && a.x + a.width > b.x && a.top < b.top + b.height && a.top + a.height > b.top;
}

/**
 * Where each line's label goes so that no two labels overlap (issue 30: on long charts the window,
 * input budget, trigger and target lines sit a few pixels apart and their names were drawn over
 * each other). Pure. `widths[i]` is label i's box width. Each label wants the spot just above its
 * line (off-scale ones: the top edge); when that is taken it tries just below its line, then one
 * label height further up, further down, … within `area`; if every row is taken there, it is moved
 * right past the labels in its way. Labels are placed in the order given (the first keeps its spot).
 */
export function layoutLineLabels(
  labels: readonly Pick<LineLabel, 'lineY' | 'align'>[],
  widths: readonly number[],
  area: { left: number; right: number; top: number; bottom: number },
  height = LABEL_HEIGHT,
  gap = 1,
): LabelBox[] {
  const placed: LabelBox[] = [];
  const step = height + gap;
  const free = (b: LabelBox) => placed.every((p) => !overlaps(b, p));
  labels.forEach((l, i) => {
    const width = widths[i];
    const x = l.align === 'right' ? Math.max(area.left, area.right - width) : area.left + 3;
    const minTop = area.top;
    const maxTop = Math.max(minTop, area.bottom - height);
    const candidates: number[] = [];
    if (l.lineY === null) {
      for (let t = minTop; t <= maxTop; t += step) candidates.push(t);
    } else {
      const above = l.lineY - 1 - height;
      const below = l.lineY + 2;
      for (let k = 0; k * step <= maxTop - minTop; k++) candidates.push(above - k * step, below + k * step);
    }
    let box: LabelBox | null = null;
    for (const t of candidates) {
      if (t < minTop || t > maxTop) continue;
      const b = { x, top: t, width, height };
      if (free(b)) {
        box = b;
        break;
      }
    }
    if (!box) {
      // Every row is taken: keep the preferred row and move right past what is in the way.
      const top = Math.min(maxTop, Math.max(minTop, l.lineY === null ? minTop : l.lineY - 1 - height));
      box = { x, top, width, height };
      for (let moved = true; moved; ) {
        moved = false;
        for (const p of placed)
          if (overlaps(box, p)) {
            box = { ...box, x: p.x + p.width + 8 };
            moved = true;
          }
      }
    }
    placed.push(box);
  });
  return placed;
}

/** Draws the lines' names where layoutLineLabels puts them, each on a backdrop so a bar or line under it does not hide it. */
export function drawLineLabels(g: CanvasRenderingContext2D, geo: Geometry, labels: readonly LineLabel[], dark: boolean): void {
  if (labels.length === 0) return;
  g.save();
  g.font = '10px ui-sans-serif, system-ui, sans-serif';
  const widths = labels.map((l) => g.measureText(l.text).width + 4);
  const boxes = layoutLineLabels(labels, widths, { left: PAD.left, right: PAD.left + geo.plotW, top: 1, bottom: PAD.top + geo.plotH });
  g.textAlign = 'left';
  g.textBaseline = 'bottom';
  labels.forEach((l, i) => {
    const b = boxes[i];
    g.fillStyle = dark ? 'rgba(11,15,20,0.8)' : 'rgba(255,255,255,0.85)';
    g.fillRect(b.x, b.top, b.width, b.height);
    g.fillStyle = l.color;
    g.fillText(l.text, b.x + 2, b.top + b.height - 1);
  });
  g.restore();
}

/**
 * One frame of the compaction layer: fates, budget lines and curves, then the context window line
 * (after the ghost bars, issue 30: it vanished under them), then every line's name (last, laid out
 * together so none covers another).
 */
export function drawCompactionFrame(
  g: CanvasRenderingContext2D,
  geo: Geometry,
  input: CompactionLayerInput,
  windowScale: { max: number; windowOnScale: boolean },
  contextWindow: number | undefined,
): void {
  const labels = drawCompactionLayer(g, geo, input);
  const windowLabel = drawContextWindow(g, geo, windowScale, contextWindow);
  drawLineLabels(g, geo, windowLabel ? [windowLabel, ...labels] : labels, input.dark);
}

/** The y-axis top that keeps every budget line worth seeing on scale. */
export function scaleWithLines(dataMax: number, current: number, lines: BudgetLines, overhead = 0): number {
  let max = current;
  for (const v of [lines.target === undefined ? undefined : lines.target + overhead, lines.trigger?.tokens, lines.inputBudget]) if (v !== undefined && v > max && v <= dataMax * 4) max = v * 1.05;
  return max;
}
