import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { simulate } from '../simulate/calls';
import { REPLAY_POLICIES } from '../simulate/policies/replay';
import { replayRows } from '../simulate/table';
import { replayTransferables, replayView } from './replay';

describe('replayView (the Replay page, packed in the worker)', () => {
  it('carries every policy with the same row the CLI prints and one point per main-chain call', () => {
    const file = corpusFiles('claude-code').find((f) => path.basename(f) === 'slopometry_transcript_opus45_compact.jsonl')!;
    const log = importFile(sourceFromBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)))).transcript;
    const view = replayView(log);
    const rows = replayRows(simulate(log, REPLAY_POLICIES));
    expect(view.series.map((s) => s.row)).toEqual(rows);
    const calls = view.callTurns.length;
    expect(calls).toBeGreaterThan(100);
    for (const s of view.series) {
      expect(s.prompts).toHaveLength(calls);
      expect(s.fired.reduce((n, f) => n + f, 0)).toBe(s.row.compactions);
      expect(Math.max(...s.prompts)).toBe(s.row.peakContext);
      // Compactions that never paid back: the table's count, marked only where the policy fired.
      expect(s.unpaid.reduce((n, f) => n + f, 0)).toBe(s.row.compactionsNotPaidBack);
      for (let i = 0; i < calls; i++) if (s.unpaid[i] || s.breakEven[i]) expect(s.fired[i]).toBe(1);
    }
    // Typed arrays travel as transferables, none shared between two series.
    const buffers = replayTransferables(view);
    expect(new Set(buffers).size).toBe(buffers.length);
    expect(buffers).toHaveLength(2 + 5 * view.series.length);
  });
});
