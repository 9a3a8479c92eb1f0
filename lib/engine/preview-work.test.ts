/**
 * Issue 31: the work of a preview, counted (never timed). The inspector's warm-up builds what
 * every preview of the log needs and no plan changes; the previews of the drags that follow, on
 * other ranges, build none of it again.
 */
import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { defaultPlan, planToDraft } from '../../components/plan/plan';
import { lostIndexStats } from '../compaction/lost';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase } from './api';
import { projectionStats } from './compaction';
import { ORIGINAL_VERSION } from './versions';

beforeEach(() => useEngineDatabase(freshDbName()));

describe('the preview path, counted', () => {
  it('the warm-up builds the log’s lost-identifier index once; Auto previews of three ranges and Apply build none', async () => {
    const out = await engine.importFile(new TextEncoder().encode(makeClaudeCodeSession(400)), 'cc-400.jsonl');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const builds = lostIndexStats.builds;
    await engine.warmPreview(id);
    expect(lostIndexStats.builds - builds).toBe(1);
    // The Plan panel's default: Auto at half the context, on the selected turns.
    const plan = defaultPlan(out.meta.tokens.total);
    for (const range of [[40, 160], [200, 320], [100, 300]] as Array<[number, number]>) {
      const p = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: planToDraft(plan, `s-${range[0]}`, range), selection: range });
      if (p.kind !== 'preview') throw new Error(JSON.stringify(p));
      expect(p.preview.tokens.selection!.after).toBeLessThan(p.preview.tokens.selection!.before);
    }
    await engine.applyStep(id, ORIGINAL_VERSION, planToDraft(plan, 's-apply', [40, 160])!);
    expect(lostIndexStats.builds - builds).toBe(1);
  });

  it('Apply projects nothing the preview it applies projected, nor does the preview of the version it makes', async () => {
    const out = await engine.importFile(new TextEncoder().encode(makeClaudeCodeSession(300)), 'cc-300.jsonl');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const draft = planToDraft(defaultPlan(out.meta.tokens.total), 's-range', [30, 120])!;
    // The original's own projection (no step), which Apply compares with.
    await engine.preview(id, { versionId: ORIGINAL_VERSION });
    const shown = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft, selection: [30, 120] });
    if (shown.kind !== 'preview') throw new Error(JSON.stringify(shown));
    const projected = projectionStats.projected;
    const version = await engine.applyStep(id, ORIGINAL_VERSION, draft);
    const after = await engine.preview(id, { versionId: version.id });
    if (after.kind !== 'preview') throw new Error(JSON.stringify(after));
    expect(projectionStats.projected).toBe(projected);
    // The version's numbers are the preview's.
    expect(after.preview.tokens.context).toEqual(shown.preview.tokens.context);
    expect(after.preview.fateCounts).toEqual(shown.preview.fateCounts);
    // Another plan is projected.
    await engine.preview(id, { versionId: version.id, draft: { ...draft, id: 's-more', range: { kind: 'turns', from: 150, to: 250 } }, selection: [150, 250] });
    expect(projectionStats.projected).toBe(projected + 1);
  });
});
