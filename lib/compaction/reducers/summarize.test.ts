import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filler, makeTranscript, type TurnSpec } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { counterFor } from '../budget';
import { wrapMessage } from '../context';
import { validatePairing } from '../../model/pairing';
import type { Transcript } from '../../model/types';
import { importBytes } from '../../formats/import';
import { formatById } from '../../formats/registry';
import { sourceFromBytes } from '../../read/source';
import { summarizeOffline } from '../../summarize/offline';
import type { SpanInput } from '../../summarize/types';
import { allCorpusFiles, corpusFiles } from '../../../tests/corpus';
import type { ProjectedMessage, Projection, SummaryKey } from '../types';
import { CHARS_PER_TOKEN, DEFAULT_SIZE_FRACTION, summaryMaxChars } from './summarize';

const turns: TurnSpec[] = Array.from({ length: 12 }, (_, i) => ({
  user: `Please fix bug ${i} in src/mod${i}.ts`,
  tools: [{ name: 'read_file', input: { path: `src/mod${i}.ts` }, output: filler(150, `m${i}`) }],
  answer: `Fixed bug ${i}.`,
}));
const log = makeTranscript(turns, { system: 'sys' });

describe('summarize', () => {
  it('replaces the window with ONE synthetic summary at the front and lists a summary request', () => {
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 2 })]);
    const summaries = p.messages.filter((m) => m.synthetic === 'summary');
    expect(summaries).toHaveLength(1);
    expect(p.messages[0].role).toBe('system');
    expect(p.messages[1]).toBe(summaries[0]);
    expect(summaries[0].span).toEqual([1, 10]);
    const text = summaries[0].blocks[0].kind === 'summary' ? summaries[0].blocks[0].text : '';
    expect(text).toContain('src/mod3.ts');
    expect(p.summaries).toHaveLength(1);
    expect(p.summaryRequests!.length).toBeGreaterThan(0);
    expect(p.summaryRequests![0].key.id).toMatch(/\|1-10\|/);
    expect(p.fates[log.messages[1].blocks[0].id]).toMatchObject({ kind: 'summarized', summaryId: summaries[0].blocks[0].id });
    // the tail is untouched
    expect(p.messages.slice(-3).every((m) => m.sourceId && m.blocks === log.messages.find((s) => s.id === m.sourceId)!.blocks)).toBe(true);
  });

  it('with untilFits summarizes only the overflow, oldest chunks first, each feeding the next', () => {
    const total = projectTranscript(log, []).tokens.after.total;
    const budget = Math.floor(total * 0.6);
    const p = projectTranscript(log, [step([{ id: 'summarize', options: { untilFits: true, chunkTurns: 2 } }], { keepLast: 1, budget })]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    const s = p.messages.find((m) => m.synthetic === 'summary')!;
    expect(s.span![0]).toBe(1);
    expect(s.span![1]).toBeLessThan(11);
    const reqs = p.summaryRequests!;
    expect(reqs.length).toBeGreaterThan(1);
    expect(reqs[1].previousSummary).toBeDefined();
    expect(reqs.map((r) => r.span[0])).toEqual(reqs.map(() => 1));
  });

  it('reads stored summaries by key and then asks for nothing', () => {
    const first = projectTranscript(log, [step(['summarize'], { keepLast: 2, id: 'fixed' })]);
    const stored = new Map(first.summaryRequests!.map((r) => [r.key.id, 'LLM SUMMARY: fixed bugs 0-9 in src/mod*.ts']));
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 2, id: 'fixed' })], { summaries: (k: SummaryKey) => stored.get(k.id) });
    const s = p.messages.find((m) => m.synthetic === 'summary')!;
    expect(s.blocks[0].kind === 'summary' && s.blocks[0].text).toBe('LLM SUMMARY: fixed bugs 0-9 in src/mod*.ts');
    expect(p.summaryRequests).toEqual([]);
    expect(p.summaries[0].producer).toBe('structured');
  });

  it('a failed (empty) summary falls back to emergency, or leaves the range, and says why', () => {
    const failing = () => '';
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 2 })], { summaries: failing });
    expect(p.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    expect(p.report[0].notes[0]).toContain('fell back to emergency');
    expect(validatePairing(p.messages)).toEqual([]);
    const left = projectTranscript(log, [step([{ id: 'summarize', options: { onFailure: 'leave' } }], { keepLast: 2 })], { summaries: failing });
    expect(left.messages).toHaveLength(log.messages.length);
    expect(left.report[0].notes[0]).toContain('left as it is');
  });

  it('the stand-in summary of several chunks is one summary of all their turns at the last chunk’s size (not chunk summaries folded as text)', () => {
    // At a fifth of the replaced tokens' characters, each chunk's summary is tightened to its own share.
    const p = projectTranscript(log, [step([{ id: 'summarize', options: { chunkTurns: 2, sizeFraction: 0.2 } }], { keepLast: 2 })]);
    const reqs = p.summaryRequests!;
    expect(reqs.length).toBe(5);
    const text = p.summaries[0].text;
    const all = reqs.flatMap((r) => r.messages);
    expect(text).toBe(summarizeOffline({ messages: all, span: reqs.at(-1)!.span, maxChars: reqs.at(-1)!.maxChars }).trim());
    // Folded chunk by chunk it was another text: the earlier chunks' summaries quoted in it.
    expect(text).not.toBe(summarizeOffline({ ...reqs.at(-1)!, messages: reqs.at(-1)!.messages }).trim());
    // The keys the async layer produces by are the chunked ones, as before: the second chunk's request follows the first's stand-in.
    expect(reqs[1].previousSummary).toBe(summarizeOffline({ messages: reqs[0].messages, span: reqs[0].span, maxChars: reqs[0].maxChars }));
  });

  it('after a stored chunk summary, the stand-in summarizes once only the chunks after it, the stored text folded in', () => {
    const first = projectTranscript(log, [step([{ id: 'summarize', options: { chunkTurns: 2, sizeFraction: 0.2 } }], { keepLast: 2, id: 'mixed' })]);
    const r0 = first.summaryRequests![0];
    const stored = 'LLM SUMMARY of turns 2-3: fixed bugs 1 and 2 in src/mod1.ts, src/mod2.ts';
    const p = projectTranscript(log, [step([{ id: 'summarize', options: { chunkTurns: 2, sizeFraction: 0.2 } }], { keepLast: 2, id: 'mixed' })], { summaries: (k: SummaryKey) => (k.id === r0.key.id ? stored : undefined) });
    const reqs = p.summaryRequests!;
    expect(reqs).toHaveLength(4);
    expect(reqs[0].previousSummary).toBe(stored);
    const text = p.summaries[0].text;
    expect(text).toBe(summarizeOffline({ messages: reqs.flatMap((r) => r.messages), span: reqs.at(-1)!.span, previousSummary: stored, maxChars: reqs.at(-1)!.maxChars }).trim());
    expect(text).toContain('LLM SUMMARY of turns 2-3');
  });

  it('a second summarize step folds the first summary in: one summary at the front', () => {
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 6 }), step(['summarize'], { keepLast: 2 })]);
    const summaries = p.messages.filter((m) => m.synthetic === 'summary');
    expect(summaries).toHaveLength(1);
    expect(summaries[0].span).toEqual([7, 10]);
    expect(p.report[1].notes).toContain('folded the previous summary in');
  });
});

// ---------------------------------------------------------------------------------------------
// A summary is never larger than the span it replaces (real corpus spans).

/** Every conversation of every corpus file (containers: the first 8), imported as the app does. */
function corpusTranscripts(): Transcript[] {
  const out: Transcript[] = [];
  for (const file of allCorpusFiles().filter((f) => !f.endsWith('.md') && !f.endsWith('.chunks.txt'))) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const first = importBytes(path.basename(file), bytes).transcript;
    const format = formatById(first.format);
    const count = format?.listConversations ? Math.min(8, format.listConversations(sourceFromBytes(path.basename(file), bytes)).length) : 1;
    out.push(first);
    for (let i = 1; i < count; i++) out.push(importBytes(path.basename(file), bytes, { conversation: i, format: first.format }).transcript);
  }
  return out;
}

const tokensOf = (m: ProjectedMessage) => m.blocks.reduce((n, b) => n + b.tokens, 0);

describe('summarize: a summary is smaller than the span it replaces', () => {
  const corpus = corpusTranscripts();

  it('on every real span of the corpus: applied summaries are smaller, the others are refused and the span kept', () => {
    let applied = 0;
    let refused = 0;
    for (const t of corpus) {
      if (t.turnCount < 3) continue;
      // Spans from the first turn to 1, 2, 4, 8, … turns, and the whole editable window.
      const ends = new Set<number>([t.turnCount - 2]);
      for (let k = 0; k < t.turnCount - 1; k = k === 0 ? 1 : k * 2) ends.add(k);
      for (const style of ['structured', 'narrative', 'claude-code'])
        for (const to of ends) {
          const s = step([{ id: 'summarize', options: { style } }], { keepLast: 1, range: { kind: 'turns', from: 0, to } });
          const p = projectTranscript(t, [s]);
          const where = `${t.fileName} ${style} turns 1–${to + 1}`;
          const summary = p.messages.find((m) => m.synthetic === 'summary');
          const report = p.report.find((r) => r.reducer === 'summarize')!;
          if (summary) {
            applied++;
            // The tokens the summary replaced: what left the context, plus the summary that came in.
            const replaced = p.tokens.start!.total - p.tokens.after.total + tokensOf(summary);
            expect(tokensOf(summary), where).toBeLessThan(replaced);
          } else if (report.notes.some((n) => n.includes('not smaller than the span'))) {
            refused++;
            expect(p.tokens.after.total, where).toBe(p.tokens.start!.total);
            expect(Object.values(p.fates).some((f) => f.kind !== 'kept' && f.stepId === s.id), where).toBe(false);
          }
        }
    }
    console.log(`[summarize] corpus spans: ${applied} summaries applied (each smaller than its span), ${refused} refused (offline floor above the span)`);
    expect(applied).toBeGreaterThan(100);
  });

  it('a real span whose full offline summary is larger than the span is now summarized within it (tau-bench, conversation 2)', () => {
    const file = corpusFiles('openai-chat').find((f) => f.includes('tau-bench'))!;
    const t = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)), { conversation: 1 }).transcript;
    const s = step(['summarize'], { keepLast: 1, range: { kind: 'turns', from: 0, to: 5 } });
    // What the summarizer is given (the step's window, system messages aside), summarized with the default caps.
    const window = t.messages.filter((m) => m.turn <= 5 && m.role !== 'system').map(wrapMessage);
    const spanTokens = window.reduce((n, m) => n + tokensOf(m), 0);
    const counter = counterFor(t);
    const unbounded = counter.count(summarizeOffline({ messages: window, span: [window[0].turn, 5] }).trim());
    expect(unbounded).toBeGreaterThanOrEqual(spanTokens); // the old reducer's summary: not smaller, so it was refused

    const p = projectTranscript(t, [s]);
    const summary = p.messages.find((m) => m.synthetic === 'summary');
    expect(summary, p.report.map((r) => r.notes.join(' ')).join(' / ')).toBeDefined();
    expect(tokensOf(summary!)).toBeLessThan(spanTokens);
    // Still a structured summary: the six sections, cuts marked.
    const text = summary!.blocks[0].kind === 'summary' ? summary!.blocks[0].text : '';
    expect(text.match(/^## /gm)?.length).toBe(6);
  });

  it('passes maxChars from the replaced tokens (× 4 chars × 0.5), and the same bound and span size to LLM requests', () => {
    const seen: SpanInput[] = [];
    const spy = (input: SpanInput) => {
      seen.push(input);
      return summarizeOffline(input);
    };
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 2 })], { summarizer: spy });
    // Turn 0 holds the system message; keep_last 2 of 13 turns leaves turns 1–10 (0-based) to summarize.
    const window = log.messages.filter((m) => m.turn <= 10 && m.role !== 'system');
    const spanTokens = window.reduce((n, m) => n + m.blocks.reduce((k, b) => k + b.tokens, 0), 0);
    expect(seen).toHaveLength(1);
    expect(seen[0].maxChars).toBe(summaryMaxChars(spanTokens));
    expect(summaryMaxChars(spanTokens)).toBe(Math.floor(spanTokens * CHARS_PER_TOKEN * DEFAULT_SIZE_FRACTION));
    expect(p.summaryRequests![0]).toMatchObject({ spanTokens, maxChars: summaryMaxChars(spanTokens), tokenizer: counterFor(log).id });
    // sizeFraction is an option.
    seen.length = 0;
    projectTranscript(log, [step([{ id: 'summarize', options: { sizeFraction: 0.25 } }], { keepLast: 2 })], { summarizer: spy });
    expect(seen[0].maxChars).toBe(summaryMaxChars(spanTokens, 0.25));
  });

  it('refuses a summary that is not smaller than its span, offline or stored (LLM): span kept, both sizes reported', () => {
    const spanOf = (p: Projection) => p.tokens.start!.total;
    const bloated = () => 'x '.repeat(20_000);
    const offline = projectTranscript(log, [step(['summarize'], { keepLast: 2 })], { summarizer: bloated });
    expect(offline.messages.some((m) => m.synthetic === 'summary')).toBe(false);
    expect(offline.tokens.after.total).toBe(spanOf(offline));
    expect(offline.summaryRequests).toEqual([]);
    expect(offline.report[0].notes[0]).toMatch(/^summary \(\d+ tokens, by the offline summarizer\) is not smaller than the span \(turns 2–11, \d+ tokens\): not applied, range kept$/);
    const stored = projectTranscript(log, [step(['summarize'], { keepLast: 2 })], { summaries: bloated });
    expect(stored.messages.some((m) => m.synthetic === 'summary')).toBe(false);
    expect(stored.report[0].notes[0]).toContain('by structured) is not smaller than the span');
  });
});
