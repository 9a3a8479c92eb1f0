/**
 * The timeline series packed into typed arrays, once per timeline: drawing and hit-testing 100k
 * turns then read flat numbers instead of walking 100k objects of records (STYLE.md §11). Pure.
 */
import type { Timeline } from '@/lib/engine/timeline';
import { STACK_ORDER } from '../ui/kinds';
import { lowerBound, type TurnView } from './scale';

export interface PackedTimeline {
  count: number;
  /** Turn number of each bar (sorted ascending; bars of turns without messages are absent). */
  turnNo: Int32Array;
  /** Cumulative stack tops: tops[i * KINDS + k] = sum of STACK_ORDER[0..k] of bar i. */
  tops: Float32Array;
  /** Recorded context size of each bar, NaN where the source recorded none. */
  recorded: Float32Array;
  hasRecorded: boolean;
}

export const KINDS = STACK_ORDER.length;

export function packTimeline(timeline: Pick<Timeline, 'turns' | 'overhead'>): PackedTimeline {
  const { turns, overhead } = timeline;
  const count = turns.length;
  const turnNo = new Int32Array(count);
  const tops = new Float32Array(count * KINDS);
  const recorded = new Float32Array(count);
  let hasRecorded = false;
  for (let i = 0; i < count; i++) {
    const t = turns[i];
    turnNo[i] = t.turn;
    let acc = 0;
    for (let k = 0; k < KINDS; k++) {
      const kind = STACK_ORDER[k];
      acc += kind === 'overhead' ? overhead : t.context[kind];
      tops[i * KINDS + k] = acc;
    }
    if (t.recorded === undefined) recorded[i] = NaN;
    else {
      recorded[i] = t.recorded;
      hasRecorded = true;
    }
  }
  return { count, turnNo, tops, recorded, hasRecorded };
}

/**
 * The largest bar (estimated context with overhead) among bars [view.start, view.end]: the top of
 * a fit-to-data y-axis. Recorded sizes above it are drawn along the top edge (draw.ts).
 */
export function viewMax(packed: PackedTimeline, view: TurnView): number {
  let max = 0;
  const end = Math.min(packed.count - 1, view.end);
  for (let i = Math.max(0, view.start); i <= end; i++) {
    const top = packed.tops[i * KINDS + KINDS - 1];
    if (top > max) max = top;
  }
  return max;
}

/** Bar index of a turn number, or -1 (binary search). */
export function indexOfTurn(packed: PackedTimeline, turn: number): number {
  const i = lowerBound(packed.turnNo, turn);
  return i < packed.count && packed.turnNo[i] === turn ? i : -1;
}

/** Bar index range [a, b] covering turn numbers [from, to], or null when none falls inside. */
export function indexRangeOfTurns(packed: PackedTimeline, from: number, to: number): [number, number] | null {
  const a = lowerBound(packed.turnNo, from);
  const b = lowerBound(packed.turnNo, to + 1) - 1;
  return a <= b ? [a, b] : null;
}

/**
 * The bars worth drawing for a view `plotWidth` pixels wide: every bar when each gets a pixel or
 * more, else the tallest bar of each pixel column (peaks stay visible, the work is bounded by the
 * width, not by the turn count). Returns bar indexes, ascending.
 */
export function visibleBars(packed: PackedTimeline, view: TurnView, plotWidth: number): Int32Array {
  const span = view.end - view.start + 1;
  if (packed.count === 0 || span <= 0) return new Int32Array(0);
  const columns = Math.max(1, Math.floor(plotWidth));
  if (span <= columns) {
    const out = new Int32Array(span);
    for (let j = 0; j < span; j++) out[j] = view.start + j;
    return out;
  }
  const out = new Int32Array(columns);
  const last = KINDS - 1;
  for (let c = 0; c < columns; c++) {
    const a = view.start + Math.floor((c * span) / columns);
    const b = Math.max(a, view.start + Math.floor(((c + 1) * span) / columns) - 1);
    let best = a;
    let top = packed.tops[a * KINDS + last];
    for (let i = a + 1; i <= b; i++) {
      const v = packed.tops[i * KINDS + last];
      if (v > top) {
        top = v;
        best = i;
      }
    }
    out[c] = best;
  }
  return out;
}
