/**
 * Every reducer on its own, on every corpus file that imports (all conversations of containers
 * included: no export here), with keep_last 1 and a budget of half the file: the log is unchanged,
 * pairing holds, keep_last is untouched, tokens never grow, and the report accounts for the change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCorpusFiles } from '../corpus';
import { importFile } from '../../lib/formats/import';
import { sourceFromBytes } from '../../lib/read/source';
import { validatePairing } from '../../lib/model/pairing';
import { transcriptTotals } from '../../lib/tokens/totals';
import { projectTranscript } from '../../lib/compaction/project';
import { REDUCER_IDS } from '../../lib/compaction/reducers';
import { proposeTangents } from '../../lib/compaction/tangents';
import type { Transcript } from '../../lib/model/types';

// Every transcript of the corpus (SOURCES.md is not one). A file that does not import fails its
// own test, named after it: it is never skipped.
const files = allCorpusFiles().filter((x) => !x.endsWith('.md') && !x.endsWith('.chunks.txt'));
const load = (f: string): Transcript => importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;

describe('each reducer alone on the corpus', () => {
  it('found the corpus', () => expect(files.length).toBeGreaterThanOrEqual(40));
  for (const f of files) {
    const name = path.relative(path.dirname(path.dirname(f)), f);
    it(name, () => {
      const t = load(f);
      // A single-message file (a one-shot API request) has nothing for a reducer to do, but imports.
      expect(t.messages.length, name).toBeGreaterThanOrEqual(1);
      const snapshot = JSON.stringify(t.messages);
      const budget = Math.max(1, Math.floor(transcriptTotals(t).total / 2));
      const baseIssues = validatePairing(t.messages.filter((m) => !m.sidechain)).length;
      for (const id of REDUCER_IDS) {
        const options: Record<string, unknown> = id === 'classify-tangents' ? { turns: proposeTangents(t).map((p) => p.turn) } : {};
        const p = projectTranscript(t, [{ id: 'r', range: { kind: 'after-last-compaction' }, reducers: [{ id, options }], keepLast: 1, budget, createdAt: '' }]);
        expect(validatePairing(p.messages.filter((m) => !m.sidechain)).length, id).toBeLessThanOrEqual(baseIssues);
        expect(p.tokens.after.total, id).toBeLessThanOrEqual(p.tokens.start!.total);
        const r = p.report[0];
        expect(r.reducer).toBe(id);
        expect(r.tokensBefore - r.tokensAfter, id).toBe(p.tokens.start!.total - p.tokens.after.total);
        const last = t.turnCount - 1;
        // The protected turn is untouched unless the source's own compaction marker already covered it.
        const coveredBySource = (blockId: string) => p.fates[blockId]?.kind === 'summarized' && (p.fates[blockId] as { stepId: string }).stepId.startsWith('source-marker:');
        for (const m of t.messages.filter((x) => x.turn === last && !x.sidechain && x.blocks.length > 0 && !coveredBySource(x.blocks[0].id))) {
          expect(p.messages.find((x) => x.sourceId === m.id)?.blocks, `${id} ${m.id}`).toBe(m.blocks);
        }
      }
      expect(JSON.stringify(t.messages)).toBe(snapshot);
    });
  }
});
