/**
 * prune-tools (RFD 036): drop tool definitions that no call in the conversation ever used. They
 * are sent with every request (schema overhead), so this saves tokens on every call — but it
 * changes the very front of the request (tools come first), so it costs the whole cache prefix.
 * "Used" is judged over the whole log, protected turns included.
 */
import { ContextEditor, isStrArray, opt, type Reducer } from '../context';

export function pruneTools(options: Record<string, unknown> = {}): Reducer {
  const keep = new Set(opt(options, 'keep', [], isStrArray));
  return {
    id: 'prune-tools',
    reduce(ctx, budget, state) {
      const used = new Set<string>();
      for (const m of ctx.log.messages) for (const b of m.blocks) if (b.kind === 'tool_call') used.add(b.name);
      const kept = ctx.tools.filter((t) => used.has(t.name) || keep.has(t.name));
      const pruned = ctx.tools.filter((t) => !kept.includes(t));
      const editor = new ContextEditor(ctx, 'prune-tools');
      if (pruned.length === 0) return editor.finish(state, ['every declared tool is used']);
      const base = editor.finish(state);
      const next = { ...base.ctx, tools: kept };
      const saved = pruned.reduce((n, t) => n + t.tokens, 0);
      return {
        ctx: next,
        state,
        report: {
          ...base.report,
          events: pruned.length,
          tokensAfter: base.report.tokensBefore - saved,
          notes: [`pruned ${pruned.length} unused tool schema(s): ${pruned.map((t) => t.name).join(', ')}`],
        },
      };
    },
  };
}
