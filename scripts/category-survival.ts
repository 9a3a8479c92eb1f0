/**
 * What an offline compaction keeps of the five categories (lib/categories), at the size the
 * source's own compaction summary took: for each corpus session whose source compacted
 * (a marker with a summary), the records before the marker are summarized offline with the
 * summary's token count as the bound, and each category's share still present in the summary
 * is printed, beside the share the source's own summary kept.
 *
 *   npx tsx scripts/category-survival.ts [file…]     (default: every corpus file with a source compaction)
 *   --ratio R   for sessions without one: summarize the whole log at R × its tokens (default 0.05)
 *   --json      one JSON object per session
 *   --step      also the summarize step itself (chunks folded prefix-ward, as the app and the CLI
 *               run it) at the largest budget whose summary is no larger than the bound or, when
 *               the offline summary cannot get that small, than the offline summary
 */
import fs from 'node:fs';
import path from 'node:path';
import { importFile } from '../lib/formats/import';
import { sourceFromBytes } from '../lib/read/source';
import { CATEGORIES, extractCategories, survivalOf, type Survival } from '../lib/categories';
import { summarizeOfflineWith, DEFAULT_OFFLINE_LIMITS } from '../lib/summarize/offline';
import { counterFor } from '../lib/compaction/budget';
import type { Transcript } from '../lib/model/types';
import type { ProjectedMessage } from '../lib/model/projection';
import { modelTextOf } from '../lib/categories';
import { projectTranscript } from '../lib/compaction/project';
import { step } from '../lib/compaction/testing/steps';

const args = process.argv.slice(2);
const json = args.includes('--json');
const withStep = args.includes('--step');
const ratioAt = args.indexOf('--ratio');
const ratio = ratioAt >= 0 ? Number(args[ratioAt + 1]) : 0.05;
const files = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--ratio');
const CORPUS = path.resolve(process.env.CONTEXTSCOPE_CORPUS ?? path.join(process.cwd(), '../shared/corpus'));

function corpus(): string[] {
  return fs
    .readdirSync(CORPUS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(CORPUS, d.name)).map((f) => path.join(CORPUS, d.name, f)))
    .filter((f) => !f.endsWith('.md') && !f.endsWith('.chunks.txt'))
    .sort();
}

/** The span before the source's first compaction and that compaction's summary text, when there is one. */
function sourceCompaction(log: Transcript): { messages: Transcript['messages']; summary: string } | undefined {
  const marker = log.markers?.find((m) => m.atMessage > 0);
  if (!marker) return undefined;
  const summaryMessage = log.messages[marker.atMessage];
  const summary = summaryMessage?.blocks.map((b) => (b.kind === 'summary' || b.kind === 'text' ? b.text : '')).join('\n') ?? '';
  return { messages: log.messages.slice(0, marker.atMessage), summary };
}

/** The offline summary of `messages`, as large as the bound allows (the largest whose tokens are ≤ `tokens`). */
export function offlineAt(messages: readonly ProjectedMessage[], tokens: number, count: (s: string) => number): string {
  const span: [number, number] = [messages[0].turn, messages[messages.length - 1].turn];
  // maxChars is the lever; search the largest that stays within the token bound.
  let lo = 1;
  let hi = tokens * 8;
  let best = summarizeOfflineWith({ messages, span, maxChars: lo }, DEFAULT_OFFLINE_LIMITS);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const s = summarizeOfflineWith({ messages, span, maxChars: mid }, DEFAULT_OFFLINE_LIMITS);
    if (count(s) <= tokens) {
      lo = mid;
      best = s;
    } else hi = mid - 1;
  }
  return best;
}

/**
 * The summarize step over every turn of `messages` (keepLast 0), at the largest budget, in steps of
 * max(100, bound/30) tokens from the bound up, whose summary is at most `tokens`
 * (tests/compaction/category-survival.test.ts does the same on slopometry). Undefined when none is.
 */
export function stepAt(log: Transcript, messages: Transcript['messages'], tokens: number): { budget: number; tokens: number; text: string } | undefined {
  const head = { ...log, messages: [...messages], markers: [], usage: [], turnCount: messages[messages.length - 1].turn + 1 };
  const stride = Math.max(100, Math.round(tokens / 30));
  let best: { budget: number; tokens: number; text: string } | undefined;
  for (let budget = tokens; budget <= Math.max(tokens * 3, tokens + 5000); budget += stride) {
    const p = projectTranscript(head, [step(['summarize'], { keepLast: 0, budget, range: { kind: 'turns', from: 0, to: head.turnCount - 1 } })]);
    if (p.messages.some((m) => !m.synthetic)) continue;
    const after = p.tokens.after.total;
    if (after > tokens) {
      if (best) break;
      continue;
    }
    best = { budget, tokens: after, text: modelTextOf(p.messages) };
  }
  return best;
}

function share(s: Survival): Record<string, string> {
  return Object.fromEntries(CATEGORIES.map((c) => [c, `${s[c].kept}/${s[c].of}`]));
}

function main(): void {
const list = files.length ? files : corpus();
for (const f of list) {
  let log: Transcript;
  try {
    log = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
  } catch {
    continue;
  }
  const counter = counterFor(log);
  const source = sourceCompaction(log);
  const messages = (source?.messages ?? log.messages).filter((m) => !m.sidechain) as unknown as ProjectedMessage[];
  if (messages.length < 4) continue;
  const items = extractCategories(messages);
  const spanTokens = messages.reduce((n, m) => n + m.blocks.reduce((k, b) => k + b.tokens, 0), 0);
  const target = source ? counter.count(source.summary) : Math.max(200, Math.round(spanTokens * ratio));
  const ours = offlineAt(messages, target, (s) => counter.count(s));
  const row = {
    file: path.basename(f),
    messages: messages.length,
    spanTokens,
    target,
    ourTokens: counter.count(ours),
    ours: share(survivalOf(items, ours)),
    ...(source ? { theirs: share(survivalOf(items, source.summary)) } : {}),
  };
  const stepped = withStep ? stepAt(log, messages as unknown as Transcript['messages'], Math.max(target, row.ourTokens)) : undefined;
  const stepRow = withStep ? (stepped ? { stepBudget: stepped.budget, stepTokens: stepped.tokens, step: share(survivalOf(items, stepped.text)) } : { step: 'no budget gives a summary within the bound' }) : {};
  Object.assign(row, stepRow);
  if (json) console.log(JSON.stringify(row));
  else console.log(`${row.file}: ${row.messages} messages, ${row.spanTokens} tokens → ${row.ourTokens} (bound ${row.target}${source ? ', the source summary' : `, ${ratio} of the span`})\n  ours:   ${JSON.stringify(row.ours)}${row.theirs ? `\n  theirs: ${JSON.stringify(row.theirs)}` : ''}${withStep ? `\n  step:   ${stepped ? `${JSON.stringify((stepRow as { step: unknown }).step)} (budget ${stepped.budget}, ${stepped.tokens} tokens)` : 'no budget gives a summary within the bound'}` : ''}`);
}
}

if (process.argv[1] && /category-survival\.ts$/.test(process.argv[1])) main();
