/**
 * The lost report is complete (issue 27 item 3): on corpus files compacted and exported in their
 * own format, the report's lost items per category (instructions, paths, commands, errors,
 * figures: lib/compaction/lost.ts lostByCategory, what `compact` prints and `--report-json` and the
 * Lost tab carry) are exactly the items of the compacted messages that the export's model view —
 * the re-imported file from its last compaction point on — no longer holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCorpusFiles } from '../corpus';
import { importFile } from '../../lib/formats/import';
import { sourceFromBytes } from '../../lib/read/source';
import { CATEGORIES, extractCategories, modelTextOf, survivalOf } from '../../lib/categories';
import { lostByCategory } from '../../lib/compaction/lost';
import { compactTranscript } from '../../lib/cli/compact';
import { step } from '../../lib/compaction/testing/steps';
import { transcriptTotals } from '../../lib/tokens/totals';
import { formatReport } from '../../lib/compaction/report';
import { buildAudit } from '../../lib/compaction/audit';
import type { Transcript } from '../../lib/model/types';

const FILES = ['vibecodingtracker_claude_code_v1.0.95.jsonl', 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl', 'openhands_multi_swe_bench_output.jsonl', 'swe-agent_marshmallow-1867_function_calling.traj'];

function load(name: string): Transcript {
  const f = allCorpusFiles().find((x) => path.basename(x) === name)!;
  return importFile(sourceFromBytes(name, new Uint8Array(fs.readFileSync(f)))).transcript;
}

describe('the lost report agrees with the export', () => {
  for (const name of FILES)
    it(name, () => {
      const log = load(name);
      const budget = Math.floor(transcriptTotals(log).total * 0.1);
      const out = compactTranscript(log, step(['auto'], { range: { kind: 'turns', from: 0, to: log.turnCount - 1 }, keepLast: 0, budget }), budget, { write: true });
      const back = importFile(sourceFromBytes(name, out.bytes ?? new TextEncoder().encode(out.text!))).transcript;
      const from = back.markers.length ? Math.max(...back.markers.map((m) => m.atMessage)) : 0;
      const exportText = modelTextOf(back.messages.slice(from));
      const report = lostByCategory(log, out.projection).categories;
      const changed = log.messages.filter((m) => !m.sidechain && m.blocks.some((b) => out.projection.fates[b.id] && out.projection.fates[b.id].kind !== 'kept'));
      const inExport = survivalOf(extractCategories(changed, { format: log.format }), exportText);
      const total = CATEGORIES.reduce((n, c) => n + report[c].of, 0);
      expect(total, 'the compaction changed something').toBeGreaterThan(0);
      for (const c of CATEGORIES) expect(report[c].lost.map((l) => l.text), c).toEqual(inExport[c].lost.map((l) => l.text));
      console.log(`[lost report] ${name}: ${CATEGORIES.map((c) => `${c} ${report[c].of - report[c].kept}/${report[c].of}`).join(', ')}`);
      // The CLI report and the audit record (--report-json) carry the same.
      const text = formatReport(log, out.steps, out.projection, []);
      expect(text).toContain(`lost by category (of what the compacted blocks held): ${CATEGORIES.map((c) => `${c} ${report[c].of - report[c].kept}/${report[c].of}`).join(', ')}`);
      expect(buildAudit({ log, steps: out.steps, projection: out.projection, lost: [] }).lostByCategory).toEqual(report);
    });
});
