/**
 * classify-tangents (RFD 036): remove whole turns the user chose as tangents — after an LLM or
 * the heuristic classifier (lib/compaction/tangents.ts) proposed them and the user confirmed.
 * Turns outside the step's window (protected by keep_last) are refused and reported.
 */
import { ContextEditor, fates, isNumArray, opt, type Reducer } from '../context';
import { editableTurns, removeMessagesSafely } from './util';

export function classifyTangents(options: Record<string, unknown> = {}): Reducer {
  const turns = new Set(opt(options, 'turns', [], isNumArray));
  return {
    id: 'classify-tangents',
    reduce(ctx, _budget, state) {
      const editor = new ContextEditor(ctx, 'classify-tangents');
      const windowTurns = editableTurns(ctx);
      const inWindow = new Set(windowTurns.map((t) => t.turn));
      const refused = [...turns].filter((t) => !inWindow.has(t));
      const drop = windowTurns.filter((t) => turns.has(t.turn)).flatMap((t) => t.indices);
      removeMessagesSafely(editor, drop, fates.removed('classify-tangents', ctx.step.id));
      const notes = [`removed ${turns.size - refused.length} tangent turn(s)`];
      // A ticked turn an earlier compaction already took out of the context changes nothing: say why (issue 30).
      const gone = refused.filter((t) => !ctx.messages.some((m) => !m.synthetic && m.turn === t));
      for (const t of gone.sort((a, b) => a - b)) {
        const summary = ctx.messages.find((m) => m.synthetic === 'summary' && m.span && m.span[0] <= t && t <= m.span[1]);
        notes.push(
          summary?.span
            ? `turn ${t + 1} is already inside the summary of turns ${summary.span[0] + 1}–${summary.span[1] + 1}: nothing left to remove (the summary stays; undo the summarizing step to remove the turn itself)`
            : `turn ${t + 1} is no longer in the context (an earlier compaction took it out): nothing left to remove`,
        );
      }
      const other = refused.filter((t) => !gone.includes(t));
      if (other.length) notes.push(`refused turn(s) ${other.sort((a, b) => a - b).join(', ')}: outside the range or protected`);
      return editor.finish(state, notes);
    },
  };
}
