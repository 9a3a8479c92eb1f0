/**
 * tool-retention (seed 004, first-class): a tool result keeps its full content for a while, then
 * expires to `[result expired]` — the call and the pairing stay, so the model knows the call
 * happened and does not re-issue it. A result's signal lines (failing tests, errors, exit codes:
 * lib/compaction/signal.ts) follow the placeholder, so an expired failure still says what failed.
 *
 * Modes (per tool, with a global default):
 *  - age:    the result lives `turns` turns (age = last turn of the log − the result's turn);
 *  - count:  the newest `keep` results of this tool live (scope 'per-tool'), or of all tools
 *            together (scope 'all' — Anthropic clear_tool_uses "keep last N tool uses");
 *  - tokens: the newest `protectTokens` of tool output live, older results expire, applied only
 *            if at least `minReclaim` tokens come back (OpenCode prune: 40k / 20k).
 * `neverEvict` tools (durable facts) never expire. Results in protected turns count as the newest
 * but are never touched.
 */
import type { ToolResultBlock } from '../../model/types';
import { ContextEditor, fates, isBool, isEditable, isNum, isStr, isStrArray, oneOf, opt, type Reducer } from '../context';
import { NO_HINTS, hintFor, outputCategoryFor, type RetentionHint, type ToolHints } from '../hints';
import { resultCategory } from '../signal';
import type { OutputCategory } from '../truncate-text';
import { fitsNow, isStub, withSignal } from './util';

export const RESULT_EXPIRED = '[result expired]';
/** The placeholder of Anthropic's clear_tool_uses as the replay writes it (lib/simulate/policies/anthropic-context-editing.ts); a stub for isStub. */
export const CLEARED_TO_SAVE_CONTEXT = '[cleared to save context]';

export function toolRetention(options: Record<string, unknown> = {}): Reducer {
  const mode = opt(options, 'mode', 'age' as const, oneOf('age', 'count', 'tokens'));
  const turns = opt(options, 'turns', 5, isNum);
  const keep = opt(options, 'keep', 5, isNum);
  const scope = opt(options, 'scope', 'per-tool' as const, oneOf('per-tool', 'all'));
  const protectTokens = opt(options, 'protectTokens', 40_000, isNum);
  const minReclaim = opt(options, 'minReclaim', 0, isNum);
  const placeholder = opt(options, 'placeholder', RESULT_EXPIRED, isStr);
  const neverEvict = new Set(opt(options, 'neverEvict', [], isStrArray));
  const exclude = new Set(opt(options, 'excludeTools', [], isStrArray));
  const only = opt<string[] | undefined>(options, 'tools', undefined, (v): v is string[] | undefined => isStrArray(v));
  const useHints = opt(options, 'useHints', true, isBool);
  const untilFits = opt(options, 'untilFits', false, isBool);
  const hints = (options.hints ?? NO_HINTS) as ToolHints;
  // A map, not a keyed read of the options object: that read was compiled for one tool's name and
  // thrown away (with the reducer around it) by the next log's first other name.
  const perTool = new Map(Object.entries((options.perTool ?? {}) as Record<string, RetentionHint>));

  return {
    id: 'tool-retention',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'tool-retention');
      const lastTurn = Math.max(0, ctx.log.turnCount - 1);
      // Every result in the context, newest first, with whether this step may edit it.
      const all: Array<{ mi: number; bi: number; block: ToolResultBlock; editable: boolean; turn: number }> = [];
      const messages = ctx.messages;
      for (let mi = messages.length - 1; mi >= 0; mi--) {
        const m = messages[mi];
        if (m.sidechain) continue;
        const blocks = m.blocks;
        let editable: boolean | undefined;
        for (let bi = blocks.length - 1; bi >= 0; bi--) {
          const b = blocks[bi];
          if (b.kind === 'tool_result') all.push({ mi, bi, block: b, editable: (editable ??= isEditable(ctx, m)), turn: m.turn });
        }
      }

      // One policy per tool name (asked once per result: thousands in an agent run).
      interface Policy {
        mode: RetentionHint['mode'];
        turns: number;
        keep: number;
        never: boolean;
        why: string;
        category: OutputCategory;
      }
      const policies = new Map<string, Policy>();
      const policyFor = (name: string | undefined): Policy => {
        const n = name ?? '';
        let p = policies.get(n);
        if (!p) policies.set(n, (p = policyOf(name)));
        return p;
      };
      const policyOf = (name: string | undefined): Policy => {
        const n = name ?? '';
        const fromHints = useHints ? hintFor(name, hints).retention : undefined;
        const own = perTool.get(n);
        const r: RetentionHint = { turns, keep, ...fromHints, ...own, mode: own?.mode ?? fromHints?.mode ?? (mode === 'tokens' ? 'age' : mode) };
        const why = r.mode === 'count' ? `beyond the newest ${r.keep ?? keep}${scope === 'all' ? ' tool uses' : ` ${name ?? 'tool'} results`}` : `older than ${r.turns ?? turns} turns`;
        // A literal of fixed fields, not a spread: a spread object gets a hidden class of its own, and
        // the loop below, compiled for the last run's policies, was recompiled for every new log.
        return {
          mode: r.mode,
          turns: r.turns ?? turns,
          keep: r.keep ?? keep,
          never: neverEvict.has(n) || exclude.has(n) || Boolean(r.neverEvict) || (only !== undefined && !only.includes(n)),
          why,
          category: outputCategoryFor(name, hints),
        };
      };

      const expire: typeof all = [];
      // Why each expired result went (by index in `expire`; none in tokens mode).
      const why: string[] = [];
      if (mode === 'tokens') {
        let seen = 0;
        for (const r of all) {
          const within = seen < protectTokens;
          seen += r.block.tokens;
          if (within || !r.editable || isStub(r.block.content) || policyFor(r.block.name).never) continue;
          expire.push(r);
        }
        const reclaim = expire.reduce((n, r) => n + r.block.tokens, 0);
        if (reclaim < minReclaim) {
          return editor.finish(state, [`only ${reclaim} tokens reclaimable (< ${minReclaim}): nothing pruned`]);
        }
      } else {
        const seenPerTool = new Map<string, number>();
        for (const r of all) {
          const p = policyFor(r.block.name);
          const k = scope === 'all' ? '*' : r.block.name ?? '';
          const rank = seenPerTool.get(k) ?? 0;
          seenPerTool.set(k, rank + 1);
          if (!r.editable || p.never || isStub(r.block.content)) continue;
          const expired = p.mode === 'count' ? rank >= p.keep : lastTurn - r.turn >= p.turns;
          if (expired) {
            expire.push(r);
            why.push(p.why);
          }
        }
      }
      // Oldest first, so untilFits stops with the newest results intact.
      const reasons = new Map<string, number>();
      const fate = fates.stubbed('tool-retention', ctx.step.id);
      for (let i = expire.length - 1; i >= 0; i--) {
        if (fitsNow(editor, budget, untilFits)) break;
        const r = expire[i];
        if (editor.replaceBlock(r.mi, r.bi, { content: withSignal(placeholder, r.block.content, resultCategory(r.block, policyFor(r.block.name).category), placeholder === RESULT_EXPIRED) }, fate) && why[i] !== undefined)
          reasons.set(why[i], (reasons.get(why[i]) ?? 0) + 1);
      }
      const what = mode === 'tokens' ? `older than the newest ${protectTokens} tool tokens` : mode === 'count' ? `beyond the newest ${keep}${scope === 'all' ? ' tool uses' : ' per tool'}` : `older than ${turns} turns`;
      // Per-tool lifespans (the hints table) differ from the global default: say which applied.
      const mixed = reasons.size > 1 || (reasons.size === 1 && !reasons.has(what));
      const detail = mixed ? `: ${[...reasons].map(([w, k]) => `${k} ${w}`).join(', ')}` : ` ${what}`;
      return editor.finish(state, [`expired ${editor.events} result(s)${detail}`]);
    },
  };
}
