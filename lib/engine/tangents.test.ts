/**
 * classify-tangents in the app: the engine proposes (Settings' LLM over a real HTTP server in the
 * OpenAI wire format when configured, else the offline heuristic), the Plan panel's confirmed turns
 * become the step's classify-tangents reducer, and the preview removes exactly those turns.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshDbName } from '../db/test-helpers';
import { DEFAULT_SUMMARY_SETTINGS, SUMMARY_SETTINGS_KEY } from '../summarize/settings';
import { corpusFiles } from '../../tests/corpus';
import { startWireServer, type WireServer } from '../../tests/providers/wire-server';
import { defaultPlan, planToDraft } from '../../components/plan/plan';
import { engine, useEngineDatabase } from './api';
import { ORIGINAL_VERSION } from './versions';

// A real Claude Code session with several prompts (10 turns).
const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker_claude_code'))!;
let server: WireServer;
beforeAll(async () => {
  server = await startWireServer('openai', [{ kind: 'respond', answer: () => '```json\n{"tangents": [{"turn": 4, "reason": "asks about an unrelated tool"}, {"turn": 1, "reason": "the task itself"}, {"turn": 99, "reason": "no such turn"}]}\n```' }]);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => useEngineDatabase(freshDbName()));

describe('engine.classifyTangents', () => {
  it('offline: the heuristic proposes and says so; with a provider: the LLM, never the first prompt nor a turn that does not exist; the confirmed turns leave in the preview', async () => {
    const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;

    const offline = await engine.classifyTangents(id, 1);
    expect(offline.by).toBe('heuristic');
    expect(server.requests).toHaveLength(0);
    for (const p of offline.proposals) expect(p.turn).toBeGreaterThan(0);

    await engine.putSetting(SUMMARY_SETTINGS_KEY, { ...DEFAULT_SUMMARY_SETTINGS, provider: 'openai', baseUrl: server.baseUrl, model: 'test-model', apiKey: 'sk-test-key' });
    const llm = await engine.classifyTangents(id, 1);
    expect(server.requests).toHaveLength(1);
    expect(llm).toMatchObject({ by: 'llm', proposals: [{ turn: 3, reason: 'asks about an unrelated tool' }] });
    expect(llm.provider).toContain('test-model');

    // The user ticks turn 4 (0-based 3): the plan's step removes it, and nothing else, in the preview.
    const plan = { ...defaultPlan(1000), mode: 'manual' as const, manual: {}, tangentTurns: [3] };
    const draft = planToDraft(plan, 'step-tangents', null)!;
    expect(draft.reducers).toEqual([{ id: 'classify-tangents', options: { turns: [3] } }]);
    const p = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
    if (p.kind !== 'preview') throw new Error(JSON.stringify(p));
    expect(p.preview.reducers.map((r) => [r.reducer, r.notes.join(' ')])).toEqual([['classify-tangents', 'removed 1 tangent turn(s)']]);
    expect(p.preview.tokens.context.after).toBeLessThan(p.preview.tokens.context.before);
  });
});
