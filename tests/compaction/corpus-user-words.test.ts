/**
 * Every message the user typed survives compaction verbatim, or the report names it (issue 10.3):
 * on every corpus file (conversation 0 of containers), auto at half the tokens (keep_last 0 and the
 * default 1) and the summarize strategy over the whole log. "Typed" = a user text block that is not
 * harness-injected (`meta`, side chains, system reminders, command output: facts.ts isHarnessText).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCorpusFiles } from '../corpus';
import { importFile } from '../../lib/formats/import';
import { sourceFromBytes } from '../../lib/read/source';
import { transcriptTotals } from '../../lib/tokens/totals';
import { blockText } from '../../lib/tokens/count';
import { projectTranscript } from '../../lib/compaction/project';
import { isHarnessText } from '../../lib/summarize/facts';
import type { Block, Transcript } from '../../lib/model/types';
import type { ReducerSpec, Step } from '../../lib/compaction/types';

const logs: Array<{ name: string; t: Transcript }> = [];
for (const f of allCorpusFiles().filter((x) => !x.endsWith('.md') && !x.endsWith('.chunks.txt'))) {
  const t = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
  if (t.messages.length > 1) logs.push({ name: path.relative(path.dirname(path.dirname(f)), f), t });
}

function typed(t: Transcript): Array<{ turn: number; text: string; blockId: string }> {
  const out: Array<{ turn: number; text: string; blockId: string }> = [];
  for (const m of t.messages) {
    if (m.role !== 'user' || m.meta || m.sidechain) continue;
    for (const b of m.blocks) if (b.kind === 'text' && b.text.trim() && !isHarnessText(b.text)) out.push({ turn: m.turn, text: b.text.trim(), blockId: b.id });
  }
  return out;
}

const RUNS: Array<{ label: string; reducers: ReducerSpec[]; keepLast: number }> = [
  { label: 'auto, keep_last 0', reducers: [{ id: 'auto' }], keepLast: 0 },
  { label: 'auto, keep_last 1', reducers: [{ id: 'auto' }], keepLast: 1 },
  { label: 'summarize', reducers: [{ id: 'summarize' }], keepLast: 0 },
];

describe('what the user typed survives compaction (corpus)', () => {
  for (const run of RUNS) {
    it(`${run.label} at half: verbatim in the output, or named by the report`, () => {
      let messages = 0;
      let verbatim = 0;
      let named = 0;
      const missing: string[] = [];
      /** Named "not kept" by the report, yet in the output verbatim: a false claim. */
      const falselyNamed: string[] = [];
      for (const { name, t } of logs) {
        const budget = Math.max(1, Math.floor(transcriptTotals(t).total / 2));
        const step: Step = { id: 'words', range: { kind: 'after-last-compaction' }, reducers: run.reducers, keepLast: run.keepLast, budget, createdAt: '' };
        const p = projectTranscript(t, [step]);
        const haystack = p.messages.flatMap((m) => m.blocks.map((b) => blockText(b as Block))).join('\n');
        const notes = p.report.flatMap((r) => r.notes).join('\n');
        for (const u of typed(t)) {
          // Compacted by the source itself before we started: not ours to keep.
          const fate = p.fates[u.blockId];
          if (fate?.kind === 'summarized' && fate.stepId.startsWith('source-marker:')) continue;
          messages++;
          const name_ = `turn ${u.turn + 1}: «${u.text.replace(/\s+/g, ' ').slice(0, 40)}`;
          if (haystack.includes(u.text)) {
            verbatim++;
            if (notes.split('\n').some((l) => l.startsWith('user messages not kept') && l.includes(name_))) falselyNamed.push(`${name} turn ${u.turn + 1}`);
          } else if (notes.includes(`turn ${u.turn + 1}: «${u.text.replace(/\s+/g, ' ').slice(0, 40)}`)) named++;
          else missing.push(`${name} turn ${u.turn + 1}: ${JSON.stringify(u.text.slice(0, 80))} (${u.text.length} chars)`);
        }
      }
      console.log(`[user words] ${run.label}: ${verbatim}/${messages} typed messages verbatim, ${named} named by the report, ${missing.length} neither${missing.length ? `\n  ${missing.slice(0, 15).join('\n  ')}` : ''}`);
      expect(messages).toBeGreaterThan(40);
      expect(missing).toEqual([]);
      expect(falselyNamed).toEqual([]);
    });
  }
});
