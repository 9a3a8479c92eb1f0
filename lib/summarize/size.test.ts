/**
 * LLM summaries and the size rule (a summary must be smaller than the turns it replaces), on a real
 * Claude Code session: the reducer's requests carry the bound, the prompt states it, a reply that
 * is not shorter than its span is a failure with its reason (the step then falls back as for any
 * failed summary: emergency by default, or the range left), and a short reply is used.
 *
 * The provider is an in-process SummaryProvider (the interface run.ts calls); the wire formats are
 * tested against real HTTP servers in tests/providers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectTranscript } from '../compaction/project';
import type { Step, SummaryKey } from '../compaction/types';
import { importBytes } from '../formats/import';
import { counterFor } from '../compaction/budget';
import { validatePairing } from '../model/pairing';
import { corpusFiles } from '../../tests/corpus';
import { DEFAULT_PROMPTS, lengthHint, renderPrompt } from './prompts';
import type { CompletionRequest, SummaryProvider } from './providers/types';
import { fillSummaries } from './run';

const file = corpusFiles('claude-code').find((f) => f.endsWith('vibecodingtracker_claude_code_v1.0.95.jsonl'))!;
const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
const summarizeStep = (onFailure: 'emergency' | 'leave' = 'emergency'): Step => ({
  id: 'llm',
  range: { kind: 'after-last-compaction' },
  reducers: [{ id: 'summarize', options: { chunkTurns: 3, onFailure } }],
  keepLast: 1,
  createdAt: '2026-01-01T00:00:00Z',
});

/** A provider that answers every prompt with `reply(prompt)` and records the prompts. */
function provider(reply: (prompt: string) => string): SummaryProvider & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    kind: 'anthropic',
    model: 'in-process',
    id: 'anthropic:in-process',
    prompts,
    async complete(request: CompletionRequest) {
      prompts.push(request.prompt);
      return { text: reply(request.prompt), model: 'in-process' };
    },
  };
}

describe('summary requests carry the size rule to the LLM', () => {
  const first = projectTranscript(log, [summarizeStep()]);
  const requests = first.summaryRequests!;

  it('every request names the tokens it replaces, its character bound and the tokenizer', () => {
    expect(requests.length).toBeGreaterThan(1);
    for (const r of requests) {
      expect(r.spanTokens).toBeGreaterThan(0);
      expect(r.maxChars).toBe(Math.floor(r.spanTokens! * 4 * 0.5));
      expect(r.tokenizer).toBe(counterFor(log).id);
    }
    // Prefix-ward: each chunk's summary replaces everything before it too, so the bound grows.
    for (let i = 1; i < requests.length; i++) expect(requests[i].spanTokens!).toBeGreaterThan(requests[i - 1].spanTokens!);
  });

  it('the prompt states the bound (appended, or where a template puts {{length}}); no bound, no line', () => {
    const r = requests[0];
    const { prompt } = renderPrompt(DEFAULT_PROMPTS.structured, r);
    expect(prompt.trimEnd().endsWith(lengthHint(r))).toBe(true);
    expect(lengthHint(r)).toContain(`under ${r.maxChars!.toLocaleString('en-US')} characters`);
    expect(lengthHint(r)).toContain(`about ${r.spanTokens!.toLocaleString('en-US')} tokens`);
    const placed = renderPrompt({ ...DEFAULT_PROMPTS.structured, user: '{{length}}\n\n{{conversation}}' }, r).prompt;
    expect(placed.startsWith(lengthHint(r))).toBe(true);
    expect(placed.split(lengthHint(r)).length).toBe(2);
    const unbounded = renderPrompt(DEFAULT_PROMPTS.structured, { messages: r.messages, span: r.span });
    expect(unbounded.prompt).not.toContain('Length:');
  });
});

describe('a reply not shorter than its span', () => {
  it('is a failure with its reason: the step falls back to emergency, or leaves the range', async () => {
    // A model that ignores the hint: it echoes the conversation back twice.
    const verbose = provider((prompt) => prompt + '\n' + prompt);
    const project = (onFailure: 'emergency' | 'leave') => (lookup: (k: SummaryKey) => string | undefined) => projectTranscript(log, [summarizeStep(onFailure)], { summaries: lookup });
    const r = await fillSummaries(project('emergency'), { provider: verbose, style: 'structured' });
    expect(verbose.prompts.length).toBe(1);
    expect(r.produced).toEqual([]);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0].code).toBe('too-long');
    expect(r.failures[0].message).toMatch(/not shorter than the turns it replaces \(\d+ tokens for turns that take \d+\)/);
    expect(r.projection.messages.some((m) => m.synthetic === 'summary')).toBe(false);
    expect(r.projection.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    const notes = r.projection.report.flatMap((x) => x.notes).join('\n');
    expect(notes).toContain('fell back to emergency');
    expect(notes).toContain('not shorter than the turns it replaces');
    expect(validatePairing(r.projection.messages)).toEqual([]);

    const left = await fillSummaries(project('leave'), { provider: provider((p) => p + p), style: 'structured' });
    expect(left.failures[0].code).toBe('too-long');
    expect(left.projection.tokens.after.total).toBe(left.projection.tokens.start!.total);
  });

  it('a short reply is used, smaller than its span', async () => {
    const terse = provider((prompt) => `## Active Task\nContinue (${/Summarize turns ([\d–]+)/.exec(prompt)?.[1]}).`);
    const r = await fillSummaries((lookup) => projectTranscript(log, [summarizeStep()], { summaries: lookup }), { provider: terse, style: 'structured' });
    expect(r.failures).toEqual([]);
    expect(r.produced.length).toBeGreaterThan(1);
    const summary = r.projection.messages.find((m) => m.synthetic === 'summary')!;
    const tokens = summary.blocks[0].tokens;
    const replaced = r.projection.tokens.start!.total - r.projection.tokens.after.total + tokens;
    expect(tokens).toBeLessThan(replaced);
    expect(summary.blocks[0].kind === 'summary' && summary.blocks[0].text).toContain('## Active Task');
  });
});
