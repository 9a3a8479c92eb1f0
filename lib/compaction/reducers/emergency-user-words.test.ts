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
import { contextFloor } from '../calls';
import { hasTypedText } from '../../categories';

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

  it('a bare emergency step after a summary drops the summary but gives back the user messages it quoted', () => {
    // Summarize turns 2–31 (keep_last 10), then emergency over turns 1–36: the summary goes, its typed messages return verbatim.
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 10, id: 'sum' }), step([{ id: 'emergency', options: { keepN: 0 } }], { keepLast: 1, range: { kind: 'turns', from: 0, to: 35 } })]);
    expect(p.messages.some((m) => m.synthetic === 'summary')).toBe(false);
    const kept = new Set(p.messages.map((m) => m.sourceId));
    for (const u of typed) expect(kept.has(u.id), `turn ${u.turn + 1}`).toBe(true);
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    expect(notes).toMatch(/gave back the 30 message\(s\) the user typed that the dropped summary quoted \(turns 2–31\)/);
    expect(notes).not.toMatch(/user messages not kept/);
    // The given-back messages are the log's own blocks, in turn order, and their fate is kept.
    const back = p.messages.filter((m) => m.sourceId && typed.some((u) => u.id === m.sourceId));
    expect(back.map((m) => m.turn)).toEqual(typed.map((u) => u.turn));
    for (const m of back) expect(m.blocks).toBe(log.messages.find((x) => x.id === m.sourceId)!.blocks);
    for (const m of back) for (const b of m.blocks) expect(p.fates[b.id]?.kind ?? 'kept').toBe('kept');
  });

  it("the floor counts the user's words a summary stands for", () => {
    const summarized = projectTranscript(log, [step(['summarize'], { keepLast: 10 })]);
    expect(contextFloor(log, summarized.messages).user).toBe(contextFloor(log, projectTranscript(log, []).messages).user);
  });
});

describe("summarize's emergency fallback obeys the same rule (issue #27 item 5)", () => {
  const failing = () => '';
  it('a failed summary falls back to an emergency drop that keeps every message the user typed', () => {
    const p = projectTranscript(log, [step([{ id: 'summarize', options: { emergencyKeepN: 0 } }], { keepLast: 1 })], { summaries: failing });
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    expect(notes).toContain('fell back to emergency');
    expect(p.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    const kept = new Set(p.messages.map((m) => m.sourceId));
    for (const u of typed) expect(kept.has(u.id), `turn ${u.turn + 1}`).toBe(true);
    expect(notes).not.toMatch(/user messages not kept/);
    // Tool content and the agent's words went.
    expect(p.tokens.after.total).toBeLessThan(total / 2);
  });

  it('with dropUserMessages: true the fallback may drop them, and names every one', () => {
    const p = projectTranscript(log, [step([{ id: 'summarize', options: { emergencyKeepN: 0, dropUserMessages: true } }], { keepLast: 1 })], { summaries: failing });
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    const lost = typed.filter((u) => !p.messages.some((m) => m.sourceId === u.id));
    expect(lost.length).toBeGreaterThan(0);
    expect(notes).toContain(`user messages not kept (${lost.length})`);
  });

  it("Auto's summarize stage carries the Plan's choice to its fallback", () => {
    expect(autoStages().find((s) => s.id === 'summarize')!.options).toMatchObject({ dropUserMessages: false });
    expect(autoStages({ dropUserMessages: true }).find((s) => s.id === 'summarize')!.options).toMatchObject({ dropUserMessages: true });
    const p = projectTranscript(log, [auto(Math.floor(total * 0.05))], { summaries: failing });
    const kept = new Set(p.messages.map((m) => m.sourceId));
    expect(p.report.flatMap((r) => r.notes).join('\n')).toContain('fell back to emergency');
    for (const u of typed) expect(kept.has(u.id), `turn ${u.turn + 1}`).toBe(true);
  });

  it('the shared test of typed words: tool-result-only user records and harness text are not the user\'s words', () => {
    expect(hasTypedText({ role: 'user', blocks: [{ kind: 'tool_result' }] })).toBe(false);
    expect(hasTypedText({ role: 'user', blocks: [{ kind: 'text', text: '<system-reminder>x</system-reminder>' }] })).toBe(false);
    expect(hasTypedText({ role: 'user', meta: true, blocks: [{ kind: 'text', text: 'expanded command' }] })).toBe(false);
    expect(hasTypedText({ role: 'user', synthetic: 'notice', blocks: [{ kind: 'text', text: '[Context notice] …' }] })).toBe(false);
    expect(hasTypedText({ role: 'tool', blocks: [{ kind: 'text', text: '<returncode>0</returncode>' }] })).toBe(false);
    expect(hasTypedText({ role: 'user', blocks: [{ kind: 'text', text: 'fix the parser' }] })).toBe(true);
  });
});
