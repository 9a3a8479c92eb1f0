/**
 * Session 15: a Codex shell result is a JSON string (`{"output":"…\n…","metadata":{"exit_code":2}}`).
 * Its lines — error lines, figures, a stub's signal, the lost identifiers — are read from what it
 * says (lib/categories/decode-result.ts resultLinesText), so the Lost tab's "Error lines" are one
 * list: the category's. Before, the raw string was one line: the categories found no error in it,
 * while the lost identifiers listed any result whose printed file said "error" as an error line
 * (the Lost tab showed error lines 0/0 beside 11 lost "error lines" of raw JSON).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { errorLinesOf, stubSignal } from '../categories/signal';
import { extractCategories } from '../categories';
import { projectTranscript } from './project';
import { lostByCategory, lostIdentifiers } from './lost';
import { step } from './testing/steps';
import { resultStub } from './reducers/util';

const DIR = path.resolve(__dirname, '../../../shared/corpus/codex-cli');
const load = (name: string) => importBytes(name, new Uint8Array(fs.readFileSync(path.join(DIR, name)))).transcript;

describe('Codex results are read as their output', () => {
  it('a failed shell run: its error line and exit code, decoded, in the categories and in its stub', () => {
    const log = load('codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl');
    const r = log.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result' && b.content.includes("cannot access 'lib/ai'"));
    if (r?.kind !== 'tool_result') throw new Error('the corpus result is gone');
    expect(r.content.startsWith('{"output"')).toBe(true);
    expect(errorLinesOf(r.content, 'generic')).toEqual(["ls: cannot access 'lib/ai': No such file or directory", '"exit_code":2']);
    expect(stubSignal(r.content, 'generic')).toEqual(["ls: cannot access 'lib/ai': No such file or directory", '"exit_code":2']);
    expect(resultStub(r, 'codex-cli', 'generic')).toContain("ls: cannot access 'lib/ai': No such file or directory");
    const errors = extractCategories(log.messages, { format: log.format }).filter((i) => i.category === 'errors').map((i) => i.text);
    expect(errors).toContain("ls: cannot access 'lib/ai': No such file or directory");
    for (const e of errors) expect(e.startsWith('{"output"'), e).toBe(false);
  });

  it('on every Codex rollout of the corpus, Auto at half: a lost error line is one of the category\'s error lines, and nothing lost is raw JSON', () => {
    let errorIds = 0;
    let files = 0;
    for (const name of fs.readdirSync(DIR).filter((f) => f.endsWith('.jsonl'))) {
      const log = load(name);
      files++;
      let total = 0;
      for (const m of log.messages) for (const b of m.blocks) total += b.tokens;
      const p = projectTranscript(log, [step(['auto'], { keepLast: 0, budget: Math.floor(total / 2) })]);
      const changed = log.messages.filter((m) => !m.sidechain && m.blocks.some((b) => p.fates[b.id] && p.fates[b.id].kind !== 'kept'));
      const categoryErrors = new Set(extractCategories(changed, { format: log.format }).filter((i) => i.category === 'errors').map((i) => i.text.slice(0, 200)));
      const lost = lostIdentifiers(log, p);
      for (const l of lost) expect(l.value.startsWith('{"output"'), `${name}: ${l.value.slice(0, 80)}`).toBe(false);
      for (const l of lost.filter((x) => x.kind === 'error')) {
        errorIds++;
        expect(categoryErrors.has(l.value), `${name}: ${l.value}`).toBe(true);
      }
      const byCategory = lostByCategory(log, p);
      for (const c of Object.values(byCategory.categories)) for (const item of c.lost) expect(item.text.startsWith('{"output"'), item.text).toBe(false);
    }
    expect(files).toBeGreaterThanOrEqual(4);
    // The comparison is not of empty lists: vibecodingtracker's rollout loses two error lines.
    expect(errorIds).toBeGreaterThan(0);
  });
});
