/** Step builders for tests. */
import type { ReducerId, Step, TurnRange } from '../types';

let n = 0;

export function step(reducers: Array<ReducerId | { id: ReducerId; options?: Record<string, unknown> }>, opts: { keepLast?: number; range?: TurnRange; budget?: number; id?: string } & Pick<Step, 'keepLastCalls' | 'keepLastTokens' | 'tail'> = {}): Step {
  return {
    id: opts.id ?? `s${++n}`,
    range: opts.range ?? { kind: 'after-last-compaction' },
    reducers: reducers.map((r) => (typeof r === 'string' ? { id: r } : r)),
    keepLast: opts.keepLast ?? 1,
    ...(opts.budget !== undefined && { budget: opts.budget }),
    ...(opts.keepLastCalls !== undefined && { keepLastCalls: opts.keepLastCalls }),
    ...(opts.keepLastTokens !== undefined && { keepLastTokens: opts.keepLastTokens }),
    ...(opts.tail !== undefined && { tail: opts.tail }),
    createdAt: '2026-01-01T00:00:00Z',
  };
}
