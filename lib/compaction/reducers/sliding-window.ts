/**
 * sliding-window (seed 004 §2): a turn cap or a token cap on the dialogue of the window. The
 * oldest turns leave whole (never half a tool pair); system messages stay. With neither cap and
 * `untilFits`, turns leave until the budget holds.
 */
import { ContextEditor, fates, isBool, isNum, opt, type Reducer } from '../context';
import { editableTurns, removeMessagesSafely } from './util';

export function slidingWindow(options: Record<string, unknown> = {}): Reducer {
  const maxTurns = opt<number | undefined>(options, 'maxTurns', undefined, (v): v is number | undefined => isNum(v));
  const maxTokens = opt<number | undefined>(options, 'maxTokens', undefined, (v): v is number | undefined => isNum(v));
  const untilFits = opt(options, 'untilFits', false, isBool);
  return {
    id: 'sliding-window',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'sliding-window');
      const turns = editableTurns(ctx).map((t) => ({ ...t, indices: t.indices.filter((mi) => ctx.messages[mi].role !== 'system') }));
      let count = turns.length;
      let tokens = turns.reduce((n, t) => n + t.tokens, 0);
      const drop: number[] = [];
      let dropped = 0;
      for (const t of turns) {
        const overTurns = maxTurns !== undefined && count > maxTurns;
        const overTokens = maxTokens !== undefined && tokens > maxTokens;
        const overBudget = maxTurns === undefined && maxTokens === undefined && untilFits && editor.total > budget.total;
        if (!overTurns && !overTokens && !overBudget) break;
        drop.push(...t.indices);
        count--;
        tokens -= t.tokens;
        dropped++;
        if (overBudget) {
          // Remove turn by turn so the running total is exact.
          removeMessagesSafely(editor, t.indices, fates.removed('sliding-window', ctx.step.id));
        }
      }
      if (maxTurns !== undefined || maxTokens !== undefined) removeMessagesSafely(editor, drop, fates.removed('sliding-window', ctx.step.id));
      return editor.finish(state, [`dropped the ${dropped} oldest turn(s) of the range`]);
    },
  };
}
