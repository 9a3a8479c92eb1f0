/**
 * Summary artifacts through the real Dexie schema (fake-indexeddb): produced by a provider over
 * HTTP, persisted as SummaryRows, read back into a store that the next run reuses without a
 * single request; an edited summary replaces the text under the same key. No key in any row.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectTranscript } from '../../lib/compaction/project';
import type { Step } from '../../lib/compaction/types';
import { ContextscopeDB } from '../../lib/db/schema';
import { freshDbName } from '../../lib/db/test-helpers';
import { importBytes } from '../../lib/formats/import';
import { createProvider } from '../../lib/summarize/providers';
import { fillSummaries } from '../../lib/summarize/run';
import { editStoredSummary, preloadedStore, rowToStored, storedToRow } from '../../lib/summarize/store';
import { corpusFiles } from '../corpus';
import { startWireServer, type WireServer } from './wire-server';

const SECRET = 'AIzaSy-STORE-SECRET-0123456789abcdef';

describe('summary artifacts in Dexie', () => {
  let server: WireServer;
  let db: ContextscopeDB;
  beforeAll(async () => {
    server = await startWireServer('gemini', [{ kind: 'respond', answer: ({ prompt }) => `## Active Task\nGEMINI SUMMARY ${prompt.length}` }]);
    db = new ContextscopeDB(freshDbName());
    await db.open();
  });
  afterAll(async () => {
    db.close();
    await server.close();
  });

  const file = corpusFiles('claude-code').find((f) => f.endsWith('vibecodingtracker_claude_code_v1.0.95.jsonl'))!;
  const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const steps: Step[] = [{ id: 'db', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'summarize', options: { chunkTurns: 3 } }], keepLast: 2, createdAt: '2026-01-01T00:00:00Z' }];
  const provider = () => createProvider({ kind: 'gemini', baseUrl: server.baseUrl, model: 'gemini-db', apiKey: SECRET });
  const persistTo = (transcriptId: string) => async (s: Parameters<typeof storedToRow>[0]) => {
    await db.summaries.put(storedToRow(s, transcriptId, Math.ceil(s.text.length / 4), '2026-01-01T00:00:00Z'));
  };

  it('persists produced summaries and reuses them from the rows on the next run', async () => {
    const store = preloadedStore([], persistTo(log.id));
    const first = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), store });
    await store.flush();
    expect(first.produced.length).toBeGreaterThan(0);
    const rows = await db.summaries.where('transcriptId').equals(log.id).toArray();
    expect(rows).toHaveLength(first.produced.length);
    expect(JSON.stringify(rows)).not.toContain(SECRET);
    expect(rows.map(rowToStored)).toEqual(first.produced);

    const requestsBefore = server.requests.length;
    const reloaded = preloadedStore([...rows, { id: 'garbage' }, null], persistTo(log.id));
    const second = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), store: reloaded });
    expect(server.requests.length).toBe(requestsBefore);
    expect(second.reused).toBe(first.produced.length);
    expect(second.projection.messages.map((m) => m.blocks.map((b) => (b.kind === 'summary' ? b.text : b.id)))).toEqual(first.projection.messages.map((m) => m.blocks.map((b) => (b.kind === 'summary' ? b.text : b.id))));
  });

  it('an edited summary is applied under the same key and persisted', async () => {
    const rows = await db.summaries.where('transcriptId').equals(log.id).toArray();
    const store = preloadedStore(rows, persistTo(log.id));
    const last = rowToStored(rows[rows.length - 1])!;
    const edited = editStoredSummary(store, last.id, '## Active Task\nEDITED BY THE USER: keep go.mod at 1.23');
    expect(edited?.edited).toBe(true);
    await store.flush();
    expect((await db.summaries.get(last.id))?.text).toBe('## Active Task\nEDITED BY THE USER: keep go.mod at 1.23');
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), store });
    const summary = result.projection.messages.find((m) => m.synthetic === 'summary')!;
    expect(summary.blocks[0].kind === 'summary' && summary.blocks[0].text).toBe('## Active Task\nEDITED BY THE USER: keep go.mod at 1.23');
    expect(editStoredSummary(store, last.id, '   ')).toBeUndefined();
  });
});
