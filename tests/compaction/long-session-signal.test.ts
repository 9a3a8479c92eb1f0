/**
 * A generated long agent session where every test run prints its failure in the middle of the
 * output, as real runners do (command echo, collection log, the failure, a long tail of passing
 * tests, the tally), with a user constraint every few turns (issue 15, issue 10.3):
 *  - a summarized span keeps every distinct error line of the span (signal.ts patterns);
 *  - auto at half over a large middle range keeps every user constraint of the range and ≥ 95 %
 *    of the error lines.
 */
import { describe, expect, it } from 'vitest';
import { makeTranscript, type TurnSpec } from '../../lib/compaction/testing/make';
import { step } from '../../lib/compaction/testing/steps';
import { projectTranscript } from '../../lib/compaction/project';
import { transcriptTotals } from '../../lib/tokens/totals';
import { blockText } from '../../lib/tokens/count';
import { outputCategoryFor } from '../../lib/compaction/hints';
import { errorLinesOf } from '../../lib/compaction/signal';
import type { Block } from '../../lib/model/types';

const TURNS = 600;

function testRun(i: number): string {
  const lines = [`$ pytest -q tests/test_mod_${i}.py`, '============================= test session starts ==============================', `collected ${40 + (i % 7)} items`, ''];
  for (let k = 0; k < 30; k++) lines.push(`tests/test_mod_${i}.py::test_ok_${k} PASSED                                    [${String(k * 2).padStart(3)}%]`);
  if (i % 3 === 0) {
    lines.push(
      `tests/test_mod_${i}.py::test_case_${i} FAILED`,
      '',
      '=================================== FAILURES ===================================',
      `____________________________ test_case_${i} ____________________________`,
      `    def test_case_${i}():`,
      `>       assert compute(${i}) == ${i + 1}`,
      `E       assert ${i} == ${i + 1}`,
      `E        +  where ${i} = compute(${i})`,
    );
  }
  for (let k = 30; k < 70; k++) lines.push(`tests/test_mod_${i}.py::test_ok_${k} PASSED                                    [${String(Math.min(99, k + 30)).padStart(3)}%]`);
  if (i % 3 === 0) lines.push('=========================== short test summary info ============================', `FAILED tests/test_mod_${i}.py::test_case_${i} - assert ${i} == ${i + 1}`);
  lines.push(i % 3 === 0 ? `========================= 1 failed, 69 passed in 0.${i % 10}2s =========================` : `============================== 70 passed in 0.${i % 10}1s ==============================`);
  return lines.join('\n');
}

const constraint = (i: number) => `Constraint ${i}: never edit src/legacy/module_${i}.py and keep the public API of pkg.mod_${i} stable.`;

const turns: TurnSpec[] = [];
for (let i = 0; i < TURNS; i++) {
  turns.push({
    user: i % 7 === 0 ? constraint(i) : `Continue with step ${i}.`,
    tools: [
      { name: 'Read', input: { file_path: `src/pkg/mod_${i}.py` }, output: Array.from({ length: 40 }, (_, k) => `${k + 1}\tdef f_${i}_${k}(x): return x + ${k}`).join('\n') },
      { name: 'Bash', input: { command: `pytest -q tests/test_mod_${i}.py` }, output: testRun(i), isError: i % 3 === 0 },
    ],
    answer: `Step ${i} done.`,
  });
}
const log = makeTranscript(turns, { system: 'You are a coding agent.', tools: [{ name: 'Read' }, { name: 'Bash' }] });

function errorLinesIn(from: number, to: number): string[] {
  const out = new Set<string>();
  for (const m of log.messages) {
    if (m.turn < from || m.turn > to) continue;
    for (const b of m.blocks) if (b.kind === 'tool_result') for (const l of errorLinesOf(b.content, outputCategoryFor(b.name))) out.add(l);
  }
  return [...out];
}

describe('a generated long agent session with failures mid-output', () => {
  it('has error lines in the middle of its outputs (where head/tail and first-line stubs miss them)', () => {
    const lines = testRun(3).split('\n');
    const at = lines.findIndex((l) => l.includes('test_case_3 FAILED'));
    expect(at).toBeGreaterThan(10);
    expect(at).toBeLessThan(lines.length - 10);
  });

  it('a summarized span keeps every distinct error line of the span', () => {
    const from = 100;
    const to = 399;
    const p = projectTranscript(log, [step(['summarize'], { range: { kind: 'turns', from, to }, keepLast: 0 })]);
    const summary = p.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'summary');
    expect(summary).toBeDefined();
    const text = (summary as { text: string }).text;
    const expected = errorLinesIn(from, to);
    expect(expected.length).toBeGreaterThan(250);
    const missing = expected.filter((l) => !text.includes(l.slice(0, 120)));
    console.log(`[long session] summary of turns ${from + 1}–${to + 1}: ${expected.length - missing.length}/${expected.length} distinct error lines kept (${(summary as { tokens: number }).tokens} tokens)`);
    expect(missing).toEqual([]);
  });

  for (const share of [2, 4]) it(`auto at 1/${share} over a large middle range keeps every user constraint of the range and the error lines`, () => {
    const from = 20;
    const to = 580;
    const budget = Math.floor(transcriptTotals(log).total / share);
    const p = projectTranscript(log, [step(['auto'], { range: { kind: 'turns', from, to }, keepLast: 0, budget })]);
    const haystack = p.messages.flatMap((m) => m.blocks.map((b) => blockText(b as Block))).join('\n');
    const constraints = Array.from({ length: TURNS }, (_, i) => i).filter((i) => i % 7 === 0 && i >= from && i <= to).map(constraint);
    const keptConstraints = constraints.filter((c) => haystack.includes(c));
    const errors = errorLinesIn(from, to);
    const keptErrors = errors.filter((l) => haystack.includes(l.slice(0, 120)));
    console.log(`[long session] auto at 1/${share} over turns ${from + 1}–${to + 1}: ${p.tokens.after.total} ≤ ${budget} tokens; constraints ${keptConstraints.length}/${constraints.length}; error lines ${keptErrors.length}/${errors.length}; ${p.report.map((r) => `${r.reducer}: ${r.notes[0]}`).join(' · ')}`);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    expect(keptConstraints).toEqual(constraints);
    expect(keptErrors.length / errors.length).toBeGreaterThanOrEqual(0.95);
  });
});
