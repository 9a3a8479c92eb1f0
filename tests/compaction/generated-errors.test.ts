/**
 * Errors are errors whatever the tool (issue 27, item 1). Generated 300-turn agent sessions, in a
 * format that flags failed results (Claude Code `is_error`) and one that does not (OpenAI Chat),
 * over several seeds, where the error lines sit either as the first line of a result (of any tool:
 * Read, Bash, Grep, a generic tool) or in its middle. Measured with
 * lib/categories (the same counts the lost report and the ledger give), on the text the model is
 * sent after Auto:
 *  - errors that are a result's first line: all of them kept at 30 % of the tokens;
 *  - errors in the middle of the output: ≥ 95 % kept at half, with every constraint and path.
 */
import { describe, expect, it } from 'vitest';
import { makeTranscript, type TurnSpec } from '../../lib/compaction/testing/make';
import { step } from '../../lib/compaction/testing/steps';
import { projectTranscript } from '../../lib/compaction/project';
import { transcriptTotals } from '../../lib/tokens/totals';
import { extractCategories, modelTextOf, survivalOf } from '../../lib/categories';
import { outputCategoryFor } from '../../lib/compaction/hints';
import type { Transcript } from '../../lib/model/types';

export type ErrorPlacement = 'first-line' | 'mid-output';

/** A small deterministic generator (LCG), so a seed names a session. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ERRORS = [
  (i: number) => `TypeError: handler_${i} is not a function`,
  (i: number) => `Error: ENOENT: no such file or directory, open 'src/missing_${i}.ts'`,
  (i: number) => `error[E0308]: mismatched types in mod_${i}`,
  (i: number) => `FAILED tests/test_mod_${i}.py::test_case_${i} - assert ${i} == ${i + 1}`,
  (i: number) => `src/app_${i}.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.`,
  (i: number) => `ValueError: invalid literal for int() with base 10: 'x${i}'`,
];

/** File text that mentions errors (a source file): never an error line. */
function fileText(i: number, lines: number): string {
  const body = [`class ParseError_${i} extends Error {}`, `  throw new Error("bad input ${i}")`, `def f_${i}(x): return x + ${i}`, `# handles errors from the parser`];
  return Array.from({ length: lines }, (_, k) => `${k + 1}\t${body[k % body.length]} // ${k}`).join('\n');
}

function shellOutput(i: number, lines: number): string {
  return Array.from({ length: lines }, (_, k) => `tests/test_mod_${i}.py::test_ok_${k} PASSED                                    [${String(k % 100).padStart(3)}%]`).join('\n');
}

/**
 * 300 turns; a constraint naming a path every 7th turn; each turn one tool call (Read, Bash, Grep
 * or a generic tool, at random). Every 4th turn fails: its error line first, or in the middle.
 */
export function generatedSession(seed: number, format: 'claude-code' | 'openai-chat', placement: ErrorPlacement, turnsCount = 300): Transcript {
  const r = rng(seed);
  const flags = format === 'claude-code';
  const turns: TurnSpec[] = [];
  for (let i = 0; i < turnsCount; i++) {
    const user = i % 7 === 0 ? `Constraint ${i}: never edit src/legacy/module_${i}.py and keep the public API of pkg.mod_${i} stable.` : `Continue with step ${i}.`;
    const fails = i % 4 === 1;
    const error = ERRORS[Math.floor(r() * ERRORS.length)](i);
    const pick = Math.floor(r() * 4);
    // The error: the first line of the output, or a line in its middle.
    const place = (out: string) => {
      if (!fails) return out;
      if (placement === 'first-line') return `${error}\n${out}`;
      const lines = out.split('\n');
      lines.splice(Math.floor(lines.length / 2), 0, error);
      return lines.join('\n');
    };
    let tool: { name: string; input: unknown; output: string; isError: boolean };
    if (pick === 0) tool = { name: 'Read', input: { file_path: `src/pkg/mod_${i}.py` }, output: place(fileText(i, 40 + Math.floor(r() * 40))), isError: flags && fails };
    else if (pick === 1) tool = { name: 'Bash', input: { command: `pytest -q tests/test_mod_${i}.py` }, output: place(shellOutput(i, 40 + Math.floor(r() * 80))) + `\n${fails ? '1 failed, ' : ''}${i % 50} passed in 0.${i % 10}2s`, isError: flags && fails };
    else if (pick === 2) tool = { name: 'Grep', input: { pattern: `ParseError_${i}`, path: 'src/pkg' }, output: place(Array.from({ length: 30 }, (_, k) => `src/pkg/mod_${k}.py:${k + 3}:    raise ParseError_${k}("x")`).join('\n')), isError: flags && fails };
    else tool = { name: 'query_db', input: { sql: `select * from t_${i}` }, output: place(Array.from({ length: 30 }, (_, k) => `record ${k}: value ${k * i}`).join('\n')), isError: flags && fails };
    turns.push({ user, tools: [tool], answer: `Step ${i} done.` });
  }
  return makeTranscript(turns, { system: 'You are a coding agent.', format, tools: [{ name: 'Read' }, { name: 'Bash' }, { name: 'Grep' }, { name: 'query_db' }] });
}

/** Auto over all turns but the last 10, at `share` of the session's tokens; the categories kept. */
export function autoSurvival(log: Transcript, share: number) {
  const to = log.turnCount - 11;
  const budget = Math.floor(transcriptTotals(log).total * share);
  const p = projectTranscript(log, [step(['auto'], { range: { kind: 'turns', from: 0, to }, keepLast: 0, budget })]);
  const items = extractCategories(
    log.messages.filter((m) => m.turn <= to),
    { format: log.format, categoryOf: (n) => outputCategoryFor(n) },
  );
  return { p, budget, survival: survivalOf(items, modelTextOf(p.messages)) };
}

describe('errors are errors whatever the tool: generated 300-turn sessions', () => {
  for (const format of ['claude-code', 'openai-chat'] as const)
    for (const seed of [1, 2, 3]) {
      it(`${format}, seed ${seed}: errors that are a result's first line are all kept at 30 %`, () => {
        const log = generatedSession(seed, format, 'first-line');
        const { p, budget, survival } = autoSurvival(log, 0.3);
        const e = survival.errors;
        console.log(`[generated] ${format} seed ${seed} first-line at 30 %: ${p.tokens.after.total} ≤ ${budget}; errors ${e.kept}/${e.of}; instructions ${survival.instructions.kept}/${survival.instructions.of}; paths ${survival.paths.kept}/${survival.paths.of}`);
        expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
        // 75 failures; without a flag (OpenAI Chat) a failing test's line among search matches is a match, not an error.
        expect(e.of).toBeGreaterThanOrEqual(format === 'claude-code' ? 85 : 80);
        expect(e.lost.map((l) => l.text)).toEqual([]);
      });
      it(`${format}, seed ${seed}: errors in the middle of the output, ≥ 95 % kept at half, every constraint and path`, () => {
        const log = generatedSession(seed, format, 'mid-output');
        const { p, budget, survival } = autoSurvival(log, 0.5);
        const e = survival.errors;
        console.log(`[generated] ${format} seed ${seed} mid-output at 50 %: ${p.tokens.after.total} ≤ ${budget}; errors ${e.kept}/${e.of}; instructions ${survival.instructions.kept}/${survival.instructions.of}; paths ${survival.paths.kept}/${survival.paths.of}`);
        expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
        expect(e.kept / e.of).toBeGreaterThanOrEqual(0.95);
        expect(survival.instructions.lost).toEqual([]);
        expect(survival.paths.lost).toEqual([]);
      });
    }
});
