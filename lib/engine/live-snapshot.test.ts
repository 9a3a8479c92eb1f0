/**
 * A live session's next snapshot (issue 25): the base log's original + the appended complete
 * lines, imported as a new log. The base log is not touched, and the new one is what importing
 * the whole file at once gives.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { freshDbName } from '../db/test-helpers';
import { CORPUS_DIR as CORPUS } from '../../tests/corpus';
import { threadCpuMs } from '../../tests/cpu';
import { engine, useEngineDatabase } from './api';
import { LIVE_POLL_MS } from '../../components/sessions/live';

beforeEach(() => useEngineDatabase(freshDbName()));

const CASES = [
  ['claude-code', 'claude-code-viewer_5c0375b4.jsonl'],
  ['codex-cli', 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl'],
] as const;

describe('engine.importAppended', () => {
  for (const [family, name] of CASES) {
    it(`${family}: the snapshot of a file read in two parts equals the file imported whole; the first log is unchanged`, async () => {
      const whole = new Uint8Array(fs.readFileSync(path.join(CORPUS, family, name)));
      // Cut after a newline about two thirds in, as a live read of complete lines would.
      const cut = whole.indexOf(0x0a, Math.floor(whole.length * 0.66)) + 1;
      const first = await engine.importFile(whole.slice(0, cut), name, {});
      expect(first.kind).toBe('imported');
      if (first.kind !== 'imported') return;
      const firstMessages = await engine.getMessages(first.meta.id, 0, first.meta.turns);

      const next = await engine.importAppended(first.meta.id, whole.slice(cut), name);
      expect(next.kind).toBe('imported');
      if (next.kind !== 'imported') return;
      expect(next.meta.id).not.toBe(first.meta.id);
      const direct = importBytes(name, whole).transcript;
      expect(next.meta.messages).toBe(direct.messages.length);
      expect(next.meta.turns).toBe(direct.turnCount);
      expect(next.meta.messages).toBeGreaterThan(first.meta.messages);
      expect(Buffer.from((await engine.exportOriginal(next.meta.id)).bytes).equals(Buffer.from(whole))).toBe(true);

      // The first snapshot is still there, as it was.
      expect(await engine.getMeta(first.meta.id)).toEqual(first.meta);
      expect(await engine.getMessages(first.meta.id, 0, first.meta.turns)).toEqual(firstMessages);
      expect(Buffer.from((await engine.exportOriginal(first.meta.id)).bytes).equals(Buffer.from(whole.slice(0, cut)))).toBe(true);
    });
  }

  it('fits the 2 s of "live": a poll period plus the next snapshot of the corpus\' largest Claude Code session (3.2 MB) in CPU time', async () => {
    const name = 'slopometry_transcript_opus45_compact.jsonl';
    const whole = new Uint8Array(fs.readFileSync(path.join(CORPUS, 'claude-code', name)));
    const cut = whole.lastIndexOf(0x0a, whole.length - 2) + 1;
    const first = await engine.importFile(whole.slice(0, cut), name, {});
    expect(first.kind).toBe('imported');
    if (first.kind !== 'imported') return;
    const start = threadCpuMs();
    const next = await engine.importAppended(first.meta.id, whole.slice(cut), name);
    const cpu = threadCpuMs() - start;
    expect(next.kind).toBe('imported');
    // Measured 170 ms (Node, fake-indexeddb); the page adds one poll period at most before it asks.
    expect(LIVE_POLL_MS + cpu).toBeLessThan(2_000);
  });

  it('a base that is not stored is named, not thrown', async () => {
    const out = await engine.importAppended('no-such-id', new Uint8Array([0x7b, 0x7d, 0x0a]), 'x.jsonl');
    expect(out.kind).toBe('error');
    if (out.kind === 'error') expect(out.error.message).toContain('no-such-id');
  });
});
