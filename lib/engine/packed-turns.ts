/**
 * Timeline turns packed for the worker → page trip (see PackedTurns). A module of its own, so the
 * page's bundle takes this and lib/tokens/totals.ts, not the timeline's builder.
 */
import { BUDGET_KINDS, emptyByKind } from '../tokens/totals';
import type { TimelineTurn } from './timeline';

/**
 * Timeline turns as flat typed arrays, for the trip from the worker to the page: a structured
 * clone of 100k turn objects (two by-kind records each) took seconds to write and to read; typed
 * arrays are transferred whole, and the page builds its turns from them in a loop.
 *  - ints, INTS per turn: turn, firstMessage, endMessage, calls, toolCalls, ofTurn (−1 = none);
 *  - nums, NUMS per turn: addedTotal, contextTotal, recorded, uncached, cacheRead, cacheWrite (NaN
 *    = no recorded size), then `added` and `context` by kind (BUDGET_KINDS order);
 *  - preview and time (undefined = none) per turn.
 */
export interface PackedTurns {
  count: number;
  ints: Int32Array;
  nums: Float64Array;
  preview: string[];
  time: Array<string | undefined>;
}

const INTS = 6;
const NUMS = 6 + 2 * BUDGET_KINDS.length;

export function packTurns(turns: readonly TimelineTurn[]): PackedTurns {
  const count = turns.length;
  const k = BUDGET_KINDS.length;
  const ints = new Int32Array(count * INTS);
  const nums = new Float64Array(count * NUMS);
  const preview = new Array<string>(count);
  const time = new Array<string | undefined>(count);
  for (let i = 0; i < count; i++) {
    const t = turns[i];
    const a = i * INTS;
    ints[a] = t.turn;
    ints[a + 1] = t.firstMessage;
    ints[a + 2] = t.endMessage;
    ints[a + 3] = t.calls;
    ints[a + 4] = t.toolCalls;
    ints[a + 5] = t.ofTurn ?? -1;
    const b = i * NUMS;
    nums[b] = t.addedTotal;
    nums[b + 1] = t.contextTotal;
    nums[b + 2] = t.recorded ?? NaN;
    nums[b + 3] = t.recordedSplit?.uncached ?? NaN;
    nums[b + 4] = t.recordedSplit?.cacheRead ?? NaN;
    nums[b + 5] = t.recordedSplit?.cacheWrite ?? NaN;
    for (let j = 0; j < k; j++) {
      nums[b + 6 + j] = t.added[BUDGET_KINDS[j]];
      nums[b + 6 + k + j] = t.context[BUDGET_KINDS[j]];
    }
    preview[i] = t.preview;
    time[i] = t.time;
  }
  return { count, ints, nums, preview, time };
}

export function unpackTurns(p: PackedTurns): TimelineTurn[] {
  const { ints, nums } = p;
  const k = BUDGET_KINDS.length;
  const turns = new Array<TimelineTurn>(p.count);
  for (let i = 0; i < p.count; i++) {
    const a = i * INTS;
    const b = i * NUMS;
    const added = emptyByKind();
    const context = emptyByKind();
    for (let j = 0; j < k; j++) {
      added[BUDGET_KINDS[j]] = nums[b + 6 + j];
      context[BUDGET_KINDS[j]] = nums[b + 6 + k + j];
    }
    const turn: TimelineTurn = { turn: ints[a], firstMessage: ints[a + 1], endMessage: ints[a + 2], added, addedTotal: nums[b], context, contextTotal: nums[b + 1], calls: ints[a + 3], toolCalls: ints[a + 4], preview: p.preview[i] };
    if (!Number.isNaN(nums[b + 2])) turn.recorded = nums[b + 2];
    if (!Number.isNaN(nums[b + 3])) turn.recordedSplit = { uncached: nums[b + 3], cacheRead: nums[b + 4], cacheWrite: nums[b + 5] };
    const time = p.time[i];
    if (time !== undefined) turn.time = time;
    if (ints[a + 5] >= 0) turn.ofTurn = ints[a + 5];
    turns[i] = turn;
  }
  return turns;
}
