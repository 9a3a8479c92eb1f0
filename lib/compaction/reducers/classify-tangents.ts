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
      if (refused.length) notes.push(`refused turn(s) ${refused.sort((a, b) => a - b).join(', ')}: outside the range or protected`);
      return editor.finish(state, notes);
    },
  };
}
