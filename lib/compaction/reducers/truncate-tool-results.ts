/**
 * truncate-tool-results (sven layer 4): cap each tool result at `cap` tokens (default 4000,
 * `tool_result_token_cap`) by output category — head-tail for shells, leading matches for
 * searches, balanced head+tail for file reads, a line-boundary cut otherwise — with an omission
 * notice. The category comes from the tool hints (overridable per tool).
 */
import { ContextEditor, fates, indexPairs, isBool, isNum, opt, type Reducer } from '../context';
import { NO_HINTS, isFileRead, outputCategoryFor, type ToolHints } from '../hints';
import { resultCategory } from '../signal';
import { truncateToCap } from '../truncate-text';
import { callOf, editableBlocks, fitsNow, isStub } from './util';

export const DEFAULT_TOOL_RESULT_TOKEN_CAP = 4000;

export function truncateToolResults(options: Record<string, unknown> = {}): Reducer {
  const cap = opt(options, 'cap', DEFAULT_TOOL_RESULT_TOKEN_CAP, isNum);
  const untilFits = opt(options, 'untilFits', false, isBool);
  const hints = (options.hints ?? NO_HINTS) as ToolHints;
  return {
    id: 'truncate-tool-results',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'truncate-tool-results');
      let omittedLines = 0;
      let pairs: ReturnType<typeof indexPairs> | undefined;
      for (const { mi, bi, block } of editableBlocks(ctx, 'tool_result')) {
        if (fitsNow(editor, budget, untilFits)) break;
        if (block.tokens <= cap || isStub(block.content)) continue;
        const category = resultCategory(block, outputCategoryFor(block.name, hints));
        // The re-read hint only on a file read (not an editor's edit, not `fs` writing).
        const call = category === 'file-content' ? callOf(ctx, (pairs ??= indexPairs(ctx.messages)), block.callId) : undefined;
        const cut = truncateToCap(block.content, category, cap, budget.count, category === 'file-content' && isFileRead(block.name, call?.block.input, hints));
        if (!cut) continue;
        if (editor.replaceBlock(mi, bi, { content: cut.text }, fates.truncated('truncate-tool-results', ctx.step.id, cut.keptHead, cut.keptTail))) omittedLines += cut.omittedLines;
      }
      return editor.finish(state, [`truncated ${editor.events} result(s) to ${cap} tokens (${omittedLines} lines omitted)`]);
    },
  };
}
