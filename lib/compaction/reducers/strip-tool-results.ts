/**
 * strip-tool-results (RFD 036): replace a tool result's content with a short stub — tool name,
 * status when known, its signal lines or first line (util.ts resultStub) — keeping the call and the pairing. Tools whose hint says
 * `response = "keep"` (RFD D17) are exempt unless `respectHints` is false.
 */
import { ContextEditor, fates, isBool, isStrArray, opt, type Reducer } from '../context';
import { NO_HINTS, hintFor, outputCategoryFor, type ToolHints } from '../hints';
import { editableBlocks, fitsNow, isStub, resultStub } from './util';

export function stripToolResults(options: Record<string, unknown> = {}): Reducer {
  const untilFits = opt(options, 'untilFits', false, isBool);
  const respectHints = opt(options, 'respectHints', true, isBool);
  const only = opt<string[] | undefined>(options, 'tools', undefined, (v): v is string[] | undefined => isStrArray(v));
  const hints = (options.hints ?? NO_HINTS) as ToolHints;
  return {
    id: 'strip-tool-results',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'strip-tool-results');
      let exempt = 0;
      for (const { mi, bi, block } of editableBlocks(ctx, 'tool_result')) {
        if (fitsNow(editor, budget, untilFits)) break;
        if (isStub(block.content)) continue;
        if (only && !only.includes(block.name ?? '')) continue;
        if (respectHints && hintFor(block.name, hints).response === 'keep') {
          exempt++;
          continue;
        }
        editor.replaceBlock(mi, bi, { content: resultStub(block, ctx.log.format, outputCategoryFor(block.name, hints)) }, fates.stubbed('strip-tool-results', ctx.step.id));
      }
      const notes = [`stubbed ${editor.events} tool result(s)`];
      if (exempt) notes.push(`${exempt} kept by response = "keep" hints`);
      return editor.finish(state, notes);
    },
  };
}
