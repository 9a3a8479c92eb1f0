/**
 * Every single-session corpus file whose format is registered, compacted by `auto` to 50 % of its
 * token count (inspect's number) and exported in its own format: the output re-imports, fits the
 * budget, has valid pairing, and the keep_last turn is the log's own objects in the projection.
 * Where the floor (system messages + tool schemas + the protected turn) exceeds the budget, the
 * pipeline must say so instead of pretending: keep_last drops to 0 then, and if even that cannot
 * fit, the report must name the reason. Emergency keeps the words the user typed (issue #27 item
 * 5): where they alone, with the system messages and the last model call (the floor), are above
 * the target, Auto stops there and says so — the test reads the floor from that note and checks it
 * against the floor computed from the log (lib/compaction/calls.ts contextFloor) and the target.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCorpusFiles } from '../corpus';
import { importFile } from '../../lib/formats/import';
import { formatById } from '../../lib/formats/registry';
import { sourceFromBytes } from '../../lib/read/source';
import { isFatalForExport, validatePairing } from '../../lib/model/pairing';
import { transcriptTotals } from '../../lib/tokens/totals';
import { compactTranscript } from '../../lib/cli/compact';
import type { Transcript } from '../../lib/model/types';
import type { Step } from '../../lib/compaction/types';
import { modelViewTotals, projectTranscript, startingContext } from '../../lib/compaction/project';
import { contextFloor } from '../../lib/compaction/calls';
import type { Projection } from '../../lib/compaction/types';

interface Case {
  file: string;
  t: Transcript;
}

function load(file: string): Case | undefined {
  const src = sourceFromBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)));
  // Every corpus family has an importer: a file that stops importing must fail here, not be skipped.
  const t: Transcript = importFile(src).transcript;
  const fmt = formatById(t.format);
  const conversations = fmt?.listConversations?.(src) ?? [];
  if (conversations.length > 1) return undefined; // containers: not single-session
  return { file, t };
}

const cases = allCorpusFiles()
  .filter((f) => !f.endsWith('.md') && !f.endsWith('.chunks.txt'))
  .map(load)
  .filter((c): c is Case => c !== undefined && c.t.messages.length > 1);

function protectedTokens(t: Transcript, keepLast: number): number {
  const from = t.turnCount - keepLast;
  let n = t.tools.reduce((s, x) => s + x.tokens, 0);
  for (const m of t.messages) if (!m.sidechain && (m.turn >= from || m.role === 'system')) for (const b of m.blocks) n += b.tokens;
  return n;
}

/**
 * The pipeline's word for "this does not fit": either a reducer said the protected part exceeds the
 * budget, or Auto's closing note says the floor is above the target. The floor's figure is checked,
 * not taken on trust: it is the floor of the context Auto ended with (contextFloor), no more than
 * the log's, and really is above the note's target and the budget.
 */
function expectSaidWhy(t: Transcript, p: Projection, budget: number): void {
  const notes = p.report.at(-1)!.notes.join(' ');
  if (/exceed/.test(notes)) return;
  const m = /still ([\d,]+) tokens > target ([\d,]+): .*the floor \(system [\d,]+ \+ user messages [\d,]+ \+ the last model call [\d,]+\) is ([\d,]+) tokens, above the target/.exec(notes);
  expect(m, notes).not.toBeNull();
  const [after, target, floor] = [m![1], m![2], m![3]].map((x) => Number(x.replace(/,/g, '')));
  expect(floor).toBeGreaterThan(target);
  expect(target).toBeLessThanOrEqual(budget);
  expect(after).toBeGreaterThan(target);
  // The floor of what Auto ended with (the last call as the ladder left it), and the log's own is no lower.
  expect(floor).toBe(contextFloor(t, p.messages).total);
  expect(contextFloor(t, startingContext(t, 'model-view').messages).total).toBeGreaterThanOrEqual(floor);
}

describe('auto at 50 % on every single-session corpus file', () => {
  it('found the corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });
  for (const c of cases) {
    const name = path.relative(path.dirname(path.dirname(c.file)), c.file);
    const { t } = c;
    const total = transcriptTotals(t).total;
    const budget = Math.max(1, Math.floor(total / 2));
    const keepLast = protectedTokens(t, 1) <= budget * 0.8 ? 1 : 0;
    const step: Step = { id: 'corpus', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'auto' }], keepLast, budget, createdAt: '' };

    it(`${name}: the projection fits, keeps pairs and keep_last`, () => {
      const p = projectTranscript(t, [step]);
      expect(validatePairing(p.messages.filter((m) => !m.sidechain)).length).toBeLessThanOrEqual(validatePairing(t.messages.filter((m) => !m.sidechain)).length);
      if (keepLast > 0) {
        const last = t.turnCount - 1;
        for (const m of t.messages.filter((x) => x.turn === last && !x.sidechain)) expect(p.messages.find((x) => x.sourceId === m.id)?.blocks).toBe(m.blocks);
      }
      if (p.tokens.after.total > budget) expectSaidWhy(t, p, budget);
      else expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    });

    it(`${name}: the export re-imports within budget with valid pairing`, () => {
      const out = compactTranscript(t, step, budget, { write: true });
      const re = importFile(sourceFromBytes(out.fileName!, new TextEncoder().encode(out.text!)), { format: t.format }).transcript;
      const fatal = validatePairing(re.messages.filter((m) => !m.sidechain)).filter((i) => isFatalForExport(i, re.messages.length));
      const before = validatePairing(t.messages.filter((m) => !m.sidechain)).filter((i) => isFatalForExport(i, t.messages.length));
      expect(fatal.length).toBeLessThanOrEqual(before.length);
      // The export keeps the history before its compaction point (Claude Code, Codex): what the
      // budget holds is what the model is sent when the agent resumes the file.
      const reTotal = modelViewTotals(re).total;
      expect(reTotal).toBe(out.reimportedTokens);
      // Either it fits, or the pipeline said it cannot (the floor is above the budget).
      if (reTotal > budget) expectSaidWhy(t, out.projection, budget);
    });
  }
});
