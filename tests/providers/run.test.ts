/**
 * The async summary layer end to end on a real Claude Code session: projectTranscript asks for
 * summaries, fillSummaries answers them through a real HTTP server (each wire format), prefix-ward
 * with each chunk's summary fed to the next, reuses stored artifacts, and turns every failure into
 * the emergency fallback (or leaves the range) with the reason — the key never appearing anywhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { projectTranscript } from '../../lib/compaction/project';
import type { Step } from '../../lib/compaction/types';
import { importBytes } from '../../lib/formats/import';
import { formatById } from '../../lib/formats/registry';
import { validatePairing } from '../../lib/model/pairing';
import type { Transcript } from '../../lib/model/types';
import { createProvider, ProviderError, type ProviderKind } from '../../lib/summarize/providers';
import { classifyTangentsWithProvider, fillSummaries, memoryStore, type SummaryProgress } from '../../lib/summarize/run';
import { fillFromSettings, summarizeReducerFromSettings } from '../../lib/summarize/from-settings';
import { DEFAULT_SUMMARY_SETTINGS } from '../../lib/summarize/settings';
import { extractSpanFacts } from '../../lib/summarize/facts';
import { corpusFiles } from '../corpus';
import { startWireServer, type WireServer } from './wire-server';

const SECRET = 'sk-ant-RUN-SECRET-0123456789abcdef-never-print';

function loadSession(): Transcript {
  expect(formatById('claude-code'), 'the claude-code format must be registered').toBeDefined();
  const file = corpusFiles('claude-code').find((f) => f.endsWith('slopometry_transcript_opus45_compact.jsonl'))!;
  expect(file).toBeDefined();
  return importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
}

function summarizeStep(options: Record<string, unknown> = {}): Step {
  return { id: 'step-sum', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'summarize', options: { chunkTurns: 3, ...options } }], keepLast: 2, createdAt: '2026-01-01T00:00:00Z' };
}

let consoleSpies: MockInstance[] = [];
beforeEach(() => {
  consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m));
});
afterEach(() => {
  for (const spy of consoleSpies) {
    for (const call of spy.mock.calls) expect(JSON.stringify(call.map(String))).not.toContain(SECRET);
    spy.mockRestore();
  }
});

const log = loadSession();

/** The summary's turns as the prompt states them ("Summarize turns 3–5 …"). */
function spanInPrompt(prompt: string): string {
  return /Summarize turns ([\d–]+)/.exec(prompt)?.[1] ?? '?';
}

describe.each(['openai', 'anthropic', 'gemini'] as ProviderKind[])('fillSummaries over %s', (kind) => {
  let server: WireServer;
  const provider = (extra: Record<string, unknown> = {}) => createProvider({ kind, baseUrl: server.baseUrl, model: `${kind}-sum`, apiKey: SECRET, timeoutMs: 5_000, ...extra });

  beforeAll(async () => {
    server = await startWireServer(kind);
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('produces summaries prefix-ward, each chunk fed the previous one, and reuses them next time', async () => {
    const prompts: string[] = [];
    server.script = [
      {
        kind: 'respond',
        answer: ({ prompt }) => {
          prompts.push(prompt);
          return `## Active Task\nLLM SUMMARY ${prompts.length} of turns ${spanInPrompt(prompt)}`;
        },
      },
    ];
    const steps = [summarizeStep()];
    const offline = projectTranscript(log, steps);
    expect(offline.summaryRequests!.length).toBeGreaterThan(1);
    const progress: SummaryProgress[] = [];
    const store = memoryStore();
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), store, onProgress: (p) => progress.push(p) });

    expect(result.failures).toEqual([]);
    expect(result.pending).toBe(0);
    expect(result.produced.length).toBeGreaterThan(1);
    expect(result.projection.summaryRequests).toEqual([]);
    // Chunk N+1's prompt carries chunk N's LLM summary as the previous summary.
    for (let i = 1; i < prompts.length; i++) expect(prompts[i]).toContain(`LLM SUMMARY ${i} of turns`);
    expect(prompts[0]).not.toContain('<previous_summary>');
    // The projection holds the last LLM summary (which covers the whole span) at the front.
    const produced = prompts.length;
    const summary = result.projection.messages.find((m) => m.synthetic === 'summary')!;
    const text = summary.blocks[0].kind === 'summary' ? summary.blocks[0].text : '';
    expect(text.startsWith(`## Active Task\nLLM SUMMARY ${prompts.length} of turns ${spanInPrompt(prompts[prompts.length - 1])}`)).toBe(true);
    // The models here name no file: every file the first chunk's tool calls touched is still in the
    // last summary, carried chunk to chunk by the marked backfill line.
    const firstChunkFiles = extractSpanFacts(offline.summaryRequests![0].messages).files.filter((f) => f.actions.some((a) => a !== 'mentioned'));
    expect(firstChunkFiles.length).toBeGreaterThan(0);
    for (const f of firstChunkFiles) expect(text).toContain(f.path);
    expect(validatePairing(result.projection.messages)).toEqual([]);
    expect(result.projection.summaries.map((s) => s.producer)).toEqual([`${kind}:${kind}-sum`]);
    expect(progress.filter((p) => p.phase === 'done')).toHaveLength(result.produced.length);
    for (const artifact of result.produced) {
      expect(artifact.producer).toBe(`${kind}:${kind}-sum`);
      expect(JSON.stringify(artifact)).not.toContain(SECRET);
    }

    // Same log, steps, prompt and model: everything is reused, no request is sent.
    const before = server.requests.length;
    const again = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), store });
    expect(server.requests.length).toBe(before);
    expect(again.produced).toEqual([]);
    expect(again.reused).toBe(result.produced.length);
    expect(again.projection.messages.map((m) => m.blocks.map((b) => b.id))).toEqual(result.projection.messages.map((m) => m.blocks.map((b) => b.id)));

    // A different model is a different artifact.
    await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider({ model: `${kind}-other` }), store });
    expect(server.requests.length).toBeGreaterThan(before);

    // The export of the compacted session carries the summary and never the key.
    const exported = formatById(log.format)!.serialize(log, result.projection).text;
    expect(exported).toContain(`LLM SUMMARY ${produced} of turns`);
    expect(exported).not.toContain(SECRET);
  });

  it('files the model left out are appended, marked, from the span’s tool calls', async () => {
    server.script = [{ kind: 'ok', text: '## Active Task\nWorked on the metrics.' }];
    const steps = [summarizeStep({ chunkTurns: 100 })];
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider() });
    const text = result.produced[0].text;
    expect(text.startsWith('## Active Task\nWorked on the metrics.\n\nAlso touched in these turns (not named above; added from the tool calls): ')).toBe(true);
    expect(text).toMatch(/`\/Users\/tensortemplar\/code\/slopometry\/src\/slopometry\/[^`]+\.py` \((read|edited|created)/);
  });

  it('a 500 falls back to emergency with the reason; onFailure "leave" keeps the range', async () => {
    server.script = [{ kind: 'status', status: 500, body: { error: { message: `boom for ${SECRET}` } } }];
    const steps = [summarizeStep()];
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), retries: 0 });
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0].code).toBe('server');
    expect(result.failures[0].message).toMatch(/server error \(HTTP 500\)/);
    expect(result.projection.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    expect(result.projection.report.flatMap((r) => r.notes).join('\n')).toMatch(/fell back to emergency/);
    expect(result.projection.report.flatMap((r) => r.notes).join('\n')).toMatch(/summary of turns \d+–\d+ failed: .*server error \(HTTP 500\)/);
    expect(validatePairing(result.projection.messages)).toEqual([]);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(formatById(log.format)!.serialize(log, result.projection).text).not.toContain(SECRET);

    const leave = [summarizeStep({ onFailure: 'leave' })];
    const left = await fillSummaries((lookup) => projectTranscript(log, leave, { summaries: lookup }), { provider: provider(), retries: 0 });
    expect(left.failures[0].code).toBe('server');
    const plain = projectTranscript(log, [{ ...leave[0], reducers: [] }]);
    expect(left.projection.messages.length).toBe(plain.messages.length);
    expect(left.projection.report.flatMap((r) => r.notes).join('\n')).toMatch(/left as it is/);
  });

  it('an empty summary is a failure too (never an empty summary in the context)', async () => {
    server.script = [{ kind: 'empty' }];
    const steps = [summarizeStep()];
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider() });
    expect(result.failures[0].code).toBe('empty');
    expect(result.projection.messages.filter((m) => m.synthetic === 'summary')).toEqual([]);
    expect(result.projection.messages.some((m) => m.synthetic === 'notice')).toBe(true);
  });

  it('a slow server times out → fallback with the timeout reason', async () => {
    server.script = [{ kind: 'slow', ms: 3_000 }];
    const steps = [summarizeStep()];
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider({ timeoutMs: 150 }), retries: 0 });
    expect(result.failures[0].code).toBe('timeout');
    expect(result.projection.messages.some((m) => m.synthetic === 'notice')).toBe(true);
  });

  it('429 with a short retry-after is waited out and retried', async () => {
    server.script = [
      { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
      { kind: 'respond', answer: ({ prompt }) => `LLM after retry, turns ${spanInPrompt(prompt)}` },
    ];
    const steps = [summarizeStep({ chunkTurns: 100 })];
    const progress: SummaryProgress[] = [];
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), onProgress: (p) => progress.push(p) });
    expect(result.failures).toEqual([]);
    expect(progress.some((p) => p.phase === 'waiting' && p.seconds === 1)).toBe(true);
    expect(result.produced[0].text).toMatch(/^LLM after retry/);
  });

  it('429 with a long retry-after is reported, not waited for', async () => {
    server.script = [{ kind: 'status', status: 429, headers: { 'retry-after': '600' } }];
    const steps = [summarizeStep({ chunkTurns: 100 })];
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), maxRetryWaitSeconds: 5 });
    expect(result.failures[0]).toMatchObject({ code: 'rate-limit', retryAfterSeconds: 600 });
    expect(result.failures[0].message).toContain('600 seconds');
  });

  it('cancelling stops the run and records no failure', async () => {
    server.script = [{ kind: 'slow', ms: 3_000 }];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const steps = [summarizeStep()];
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup }), { provider: provider(), signal: controller.signal });
    expect(result.failures).toEqual([]);
    expect(result.produced).toEqual([]);
    expect(result.pending).toBeGreaterThan(0);
    // The offline stand-in remains: nothing was lost.
    expect(result.projection.messages.some((m) => m.synthetic === 'summary')).toBe(true);
  });
});

describe('classify-tangents with a provider', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer('anthropic');
  });
  afterAll(async () => {
    await server.close();
  });
  const provider = () => createProvider({ kind: 'anthropic', baseUrl: server.baseUrl, model: 'claude-test', apiKey: SECRET });
  const messages = () => log.messages.map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: m.blocks }));

  it('returns validated tangents with reasons; unknown turns are ignored; dry run lists only', async () => {
    // The prompt labels turns 1-based: "turn 4" is index 3.
    server.script = [{ kind: 'ok', text: 'Here you go:\n```json\n{"tangents": [{"turn": 4, "reason": "side question about docs"}, {"turn": 999, "reason": "not a turn"}, {"turn": 4, "reason": "dup"}]}\n```' }];
    const result = await classifyTangentsWithProvider({ messages: messages() }, provider());
    expect(result.tangents).toEqual([{ turn: 3, reason: 'side question about docs' }]);
    expect(result.ignored).toEqual([998]);
    expect(result.reducer).toEqual({ id: 'classify-tangents', options: { turns: [3] } });
    const prompt = server.requests.at(-1)!.body as { messages: { content: string }[] };
    expect(prompt.messages[0].content).toContain('[turn 4]');

    const dry = await classifyTangentsWithProvider({ messages: messages() }, provider(), { dryRun: true });
    expect(dry.tangents).toHaveLength(1);
    expect(dry.reducer).toBeUndefined();

    // Applying the confirmed turns removes them from the projection, pairs intact.
    const applied = projectTranscript(log, [{ id: 'tan', range: { kind: 'after-last-compaction' }, reducers: [result.reducer!], keepLast: 1, createdAt: '2026-01-01T00:00:00Z' }]);
    expect(applied.messages.some((m) => m.turn === 3 && m.sourceId)).toBe(false);
    expect(validatePairing(applied.messages)).toEqual([]);
  });

  it('a malformed answer is a clear error', async () => {
    server.script = [{ kind: 'ok', text: 'I think turn 3 is a tangent.' }];
    const err = await classifyTangentsWithProvider({ messages: messages() }, provider()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).code).toBe('malformed');
    expect((err as ProviderError).message).toMatch(/not the JSON asked for/);
    server.script = [{ kind: 'ok', text: '{"tangents": [{"turn": "three"}]}' }];
    const shape = await classifyTangentsWithProvider({ messages: messages() }, provider()).catch((e: unknown) => e);
    expect((shape as ProviderError).code).toBe('malformed');
  });
});


describe('fillFromSettings (the app engine’s call)', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer('openai', [{ kind: 'stream', pieces: ['## Active Task\n', 'STREAMED ', 'SUMMARY'] }]);
  });
  afterAll(async () => {
    await server.close();
  });

  it('uses the Settings’ provider, streams with progress, and offline settings send nothing', async () => {
    const settings = { ...DEFAULT_SUMMARY_SETTINGS, provider: 'openai' as const, baseUrl: server.baseUrl, model: 'local', apiKey: SECRET, stream: true, onFailure: 'leave' as const };
    const step: Step = { ...summarizeStep(), reducers: [summarizeReducerFromSettings(settings, { chunkTurns: 100 })] };
    const progress: SummaryProgress[] = [];
    const result = await fillFromSettings({ project: (lookup) => projectTranscript(log, [step], { summaries: lookup }), settings, store: memoryStore(), onProgress: (p) => progress.push(p) });
    expect(result.failures).toEqual([]);
    expect(result.produced[0].text.startsWith('## Active Task\nSTREAMED SUMMARY\n\nAlso touched in these turns')).toBe(true);
    expect(progress.filter((p) => p.phase === 'delta').map((p) => (p as { chars: number }).chars)).toEqual([15, 24, 31]);
    expect((server.requests[0].body as { stream?: boolean }).stream).toBe(true);

    const before = server.requests.length;
    const offline = await fillFromSettings({ project: (lookup) => projectTranscript(log, [step], { summaries: lookup }), settings: DEFAULT_SUMMARY_SETTINGS, store: memoryStore() });
    expect(server.requests.length).toBe(before);
    expect(offline.projection.messages.some((m) => m.synthetic === 'summary')).toBe(true);
  });
});
