/**
 * strip-attachments (RFD 036): attachments are usually relevant only to the query that carried
 * them. Removed from the window; a message that held nothing else keeps a one-line placeholder
 * so the turn still reads ("[attachment removed: screenshot.png (image/png, 48213 bytes)]").
 */
import { ContextEditor, fates, isBool, opt, type Reducer } from '../context';
import { editableBlocks, fitsNow } from './util';

export function stripAttachments(options: Record<string, unknown> = {}): Reducer {
  const untilFits = opt(options, 'untilFits', false, isBool);
  return {
    id: 'strip-attachments',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'strip-attachments');
      for (const { mi, bi, block } of editableBlocks(ctx, 'attachment')) {
        if (fitsNow(editor, budget, untilFits)) break;
        const msg = ctx.messages[mi];
        const others = msg.blocks.some((b, i) => i !== bi && !editor.isRemoved(mi, i));
        if (others) {
          editor.removeBlock(mi, bi, fates.removed('strip-attachments', ctx.step.id));
        } else {
          const what = [block.mediaType, block.bytes !== undefined ? `${block.bytes} bytes` : undefined].filter(Boolean).join(', ');
          const text = `[attachment removed: ${block.name ?? 'unnamed'} (${what})]`;
          // Keep the block's kind (exporters swap content, not structure); only its text changes.
          editor.replaceBlock(mi, bi, { text, bytes: undefined, mediaType: 'text/plain' } as never, fates.stubbed('strip-attachments', ctx.step.id));
        }
      }
      return editor.finish(state, [`${editor.events} attachment(s) removed or replaced`]);
    },
  };
}
