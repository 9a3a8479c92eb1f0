/**
 * strip-reasoning (RFD 036): remove reasoning blocks from the window. Signed or encrypted
 * reasoning is removed whole — a signature covers the exact text, so it can never be shortened.
 * An assistant message left with no blocks leaves the context.
 */
import { ContextEditor, fates, isBool, opt, type Reducer } from '../context';
import { editableBlocks, fitsNow } from './util';

export interface StripReasoningOptions {
  /** Stop as soon as the budget holds (oldest first). */
  untilFits?: boolean;
}

export function stripReasoning(options: Record<string, unknown> = {}): Reducer {
  const untilFits = opt(options, 'untilFits', false, isBool);
  return {
    id: 'strip-reasoning',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'strip-reasoning');
      let signed = 0;
      for (const { mi, bi, block } of editableBlocks(ctx, 'reasoning')) {
        if (fitsNow(editor, budget, untilFits)) break;
        if (block.opaque || block.redacted) signed++;
        editor.removeBlock(mi, bi, fates.removed('strip-reasoning', ctx.step.id));
      }
      const notes = editor.events ? [`removed ${editor.events} reasoning block(s)${signed ? `, ${signed} signed/encrypted (removed whole)` : ''}`] : ['no reasoning in range'];
      return editor.finish(state, notes);
    },
  };
}
