/**
 * Issue #27 item 5, "never trade a user's words for a few percent": in Auto, emergency drops tool
 * content and the agent's words, never a message the user typed or a summary that quotes one,
 * unless the step says `dropUserMessages: true` (the Plan panel's explicit option). When the
 * floor is above the target Auto stops there and says by how much it misses.
 */
import { describe, expect, it } from 'vitest';
import { filler, makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { autoStages } from '../pipeline';

const log = makeTranscript(
  Array.from({ length: 40 }, (_, i) => ({
    user: `Constraint ${i}: never touch src/keep${i}.ts and always run the suite with --runInBand before committing change ${i}.`,
    tools: [{ name: 'Bash', input: { command: `npm test -- t${i}` }, output: filler(300, `out${i}`) }],
    answer: `Done ${i}.`,
  })),
  { format: 'openai-chat', system: 'sys' },
);
const total = projectTranscript(log, []).tokens.after.total;
const typed = log.messages.filter((m) => m.role === 'user' && m.blocks.some((b) => b.kind === 'text'));
const textOf = (p: ReturnType<typeof projectTranscript>) =>
  p.messages.flatMap((m) => m.blocks.map((b) => (b.kind === 'text' || b.kind === 'summary' ? b.text : ''))).join('\n');
const auto = (budget: number, options: Record<string, unknown> = {}) => step([{ id: 'auto', options }], { keepLast: 1, budget, id: 'auto' });

describe('emergency keeps the user\'s words unless told otherwise (issue #27 item 5)', () => {
  // The app's case: the summary lands just above the target (2 % over what Auto reaches without
  // emergency), and the floor (the user messages) is above it too.
  const summarized = projectTranscript(log, [auto(Math.floor(total * 0.05), { emergency: false })]).tokens.after.total;
  const budget = Math.floor(summarized * 0.98);

  it('Auto keeps every user message of the range (raw or quoted in its summary) and says by how much it misses', () => {
    const p = projectTranscript(log, [auto(budget)]);
    const text = textOf(p);
    for (const m of typed) {
      const t = m.blocks.find((b) => b.kind === 'text')!;
      expect(text, `turn ${m.turn + 1}`).toContain(t.kind === 'text' ? t.text.slice(0, 40) : '');
    }
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    expect(notes).not.toMatch(/user messages not kept/);
    // Here dropping tool content alone reaches the target.
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
  });

  it('when the floor is above the target, Auto stops at the floor and says by how much it misses', () => {
    const p = projectTranscript(log, [auto(Math.floor(total * 0.03))]);
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    const text = textOf(p);
    for (const m of typed) {
      const t = m.blocks.find((b) => b.kind === 'text')!;
      expect(text, `turn ${m.turn + 1}`).toContain(t.kind === 'text' ? t.text.slice(0, 40) : '');
    }
    expect(notes).not.toMatch(/user messages not kept/);
    expect(notes).toMatch(/still [\d,]+ tokens > target [\d,]+: .*the floor \(system [\d,]+ \+ user messages [\d,]+ \+ the last model call [\d,]+\) is [\d,]+ tokens, above the target/);
  });

  it('the emergency stage of Auto is off for user messages by default, on only when asked', () => {
    expect(autoStages().find((s) => s.id === 'emergency')!.options).toMatchObject({ dropUserMessages: false });
    expect(autoStages({ dropUserMessages: true }).find((s) => s.id === 'emergency')!.options).toMatchObject({ dropUserMessages: true });
  });

  it('with dropUserMessages: true emergency may drop them, and names every one it drops', () => {
    const p = projectTranscript(log, [auto(budget, { dropUserMessages: true })]);
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    const m = /user messages not kept \((\d+)\)/.exec(notes);
    expect(m, notes).not.toBeNull();
    const text = textOf(p);
    const lost = typed.filter((u) => { const t = u.blocks.find((b) => b.kind === 'text'); return t?.kind === 'text' && !text.includes(t.text.slice(0, 40)); });
    expect(lost.length).toBeGreaterThan(0);
    expect(Number(m![1])).toBe(lost.length);
  });

  it('a bare emergency step drops tool content but no user message by default', () => {
    const p = projectTranscript(log, [step([{ id: 'emergency', options: { keepN: 0 } }], { keepLast: 1, range: { kind: 'turns', from: 5, to: 35 } })]);
    const kept = new Set(p.messages.map((m) => m.sourceId));
    for (const u of typed) expect(kept.has(u.id), `turn ${u.turn + 1}`).toBe(true);
    expect(p.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    expect(p.tokens.after.total).toBeLessThan(total);
  });
});
