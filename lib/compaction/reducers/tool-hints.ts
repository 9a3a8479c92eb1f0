/**
 * tool-hints (RFD D17 + RFD 036): per-tool `request` keep/strip and `response` keep/strip/remove,
 * from the default tables (hints.ts) overridden by the user's config. Absent fields inherit the
 * profile default given as this reducer's options (`request`, `response`, both 'keep' unless set).
 *
 *  - request strip: long argument values (file contents, diffs, commit messages) are replaced by
 *    `[stripped N chars]`; short ones (paths, patterns, flags) stay — "path is cheap, content isn't";
 *  - response strip: the RFD 036 one-line stub;
 *  - response remove: the whole pair goes (never half of it).
 */
import { ContextEditor, fates, indexPairs, isBool, isEditable, isNum, oneOf, opt, type Reducer } from '../context';
import { NO_HINTS, hintFor, outputCategoryFor, type RequestMode, type ResponseMode, type ToolHints } from '../hints';
import { editableBlocks, fitsNow, isStub, removePair, resultStub } from './util';

/** Replace string values longer than `maxKeep` chars, recursively. Returns undefined when nothing changes. */
export function stripArgs(input: unknown, maxKeep: number): unknown {
  let changed = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v.length <= maxKeep) return v;
      changed = true;
      return `[stripped ${v.length} chars]`;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  let parsed = input;
  if (typeof input === 'string') {
    try {
      parsed = JSON.parse(input) as unknown;
    } catch {
      // A raw string argument (e.g. a patch given as text): strip it as one value.
      return input.length > maxKeep ? `[stripped ${input.length} chars]` : undefined;
    }
  }
  const out = walk(parsed);
  return changed ? out : undefined;
}

export function toolHintsReducer(options: Record<string, unknown> = {}): Reducer {
  const defaultRequest = opt<RequestMode>(options, 'request', 'keep', oneOf('keep', 'strip'));
  const defaultResponse = opt<ResponseMode>(options, 'response', 'keep', oneOf('keep', 'strip', 'remove'));
  const useDefaults = opt(options, 'useDefaults', true, isBool);
  const maxKeep = opt(options, 'maxArgChars', 200, isNum);
  const untilFits = opt(options, 'untilFits', false, isBool);
  /** false: never strip a request (content-only edits). */
  const requests = opt(options, 'requests', true, isBool);
  /** false: never remove a pair; `response = "remove"` stubs instead. */
  const removePairs = opt(options, 'pairs', true, isBool);
  const hints = (options.hints ?? NO_HINTS) as ToolHints;
  return {
    id: 'tool-hints',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'tool-hints');
      const pairs = indexPairs(ctx.messages);
      let strippedReq = 0;
      let strippedRes = 0;
      let removed = 0;
      const handled = new Set<string>();
      for (const { mi, bi, block } of editableBlocks(ctx, 'tool_call')) {
        if (fitsNow(editor, budget, untilFits)) break;
        const h = hintFor(block.name, hints, useDefaults);
        const response = h.response ?? defaultResponse;
        const request = h.request ?? defaultRequest;
        handled.add(block.callId);
        if (response === 'remove' && removePairs) {
          if (removePair(editor, pairs, block.callId, fates.removed('tool-hints', ctx.step.id))) {
            removed++;
            continue;
          }
        }
        if (request === 'strip' && requests) {
          const input = stripArgs(block.input, maxKeep);
          if (input !== undefined) {
            const changes = { input, ...(block.rawInput !== undefined && { rawInput: typeof input === 'string' ? input : JSON.stringify(input) }) };
            if (editor.replaceBlock(mi, bi, changes, fates.stubbed('tool-hints', ctx.step.id))) strippedReq++;
          }
        }
        if (response === 'strip' || response === 'remove') {
          const at = pairs.results.get(block.callId);
          const r = at && editor.block(at.mi, at.bi);
          if (at && r && r.kind === 'tool_result' && !isStub(r.content) && isEditable(ctx, ctx.messages[at.mi])) {
            if (editor.replaceBlock(at.mi, at.bi, { content: resultStub(r, ctx.log.format, outputCategoryFor(r.name, hints)) }, fates.stubbed('tool-hints', ctx.step.id))) strippedRes++;
          }
        }
      }
      // Results whose call lies before the window (rare: a turn split inside a tool batch).
      for (const { mi, bi, block } of editableBlocks(ctx, 'tool_result')) {
        if (handled.has(block.callId) || fitsNow(editor, budget, untilFits) || isStub(block.content)) continue;
        const response = hintFor(block.name, hints, useDefaults).response ?? defaultResponse;
        if (response !== 'keep' && editor.replaceBlock(mi, bi, { content: resultStub(block, ctx.log.format, outputCategoryFor(block.name, hints)) }, fates.stubbed('tool-hints', ctx.step.id))) strippedRes++;
      }
      return editor.finish(state, [`requests stripped: ${strippedReq}; responses stubbed: ${strippedRes}; pairs removed: ${removed}`]);
    },
  };
}
