/**
 * Issue 31: the export dialog's note ("what the file will not hold") and the export itself project
 * the same version and write the same file: done once, counted (never timed).
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase } from './api';
import { exportWork, type DraftStep } from './compaction';
import { ORIGINAL_VERSION } from './versions';

beforeEach(() => useEngineDatabase(freshDbName()));

const file = corpusFiles('claude-code').find((f) => path.basename(f) === 'slopometry_transcript_opus45_compact.jsonl')!;

describe('the export dialog projects and writes a version once (issue 31)', () => {
  it('the note, then the download: one projection, one file written; the same bytes as an export from cold', async () => {
    const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const step: DraftStep = { id: 'w', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'sliding-window', options: { maxTurns: 2 } }], keepLast: 1 };
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, step);

    const p0 = exportWork.projections;
    const s0 = exportWork.serializations;
    const left = await engine.historyLeftOut(id, v1.id);
    expect(left.keepsHistory).toBe(true);
    const warm = await engine.exportVersion(id, v1.id, { withAudit: true });
    if (warm.kind !== 'file') throw new Error(JSON.stringify(warm));
    expect(exportWork.projections - p0).toBe(1);
    expect(exportWork.serializations - s0).toBe(1);

    // Another version in between: the memo is of that one; the export from cold writes the same bytes.
    await engine.historyLeftOut(id, ORIGINAL_VERSION);
    const cold = await engine.exportVersion(id, v1.id, { withAudit: true });
    if (cold.kind !== 'file') throw new Error(JSON.stringify(cold));
    expect(exportWork.projections - p0).toBe(3);
    expect(new TextDecoder().decode(cold.file.bytes)).toBe(new TextDecoder().decode(warm.file.bytes));
    expect(cold.file.fileName).toBe(warm.file.fileName);
    expect(new TextDecoder().decode(cold.file.audit!.bytes)).toBe(new TextDecoder().decode(warm.file.audit!.bytes));
    expect(cold.file.tokens).toEqual(warm.file.tokens);
  });
});
