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

const args = process.argv.slice(2);
const json = args.includes('--json');
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
  if (json) console.log(JSON.stringify(row));
  else console.log(`${row.file}: ${row.messages} messages, ${row.spanTokens} tokens → ${row.ourTokens} (bound ${row.target}${source ? ', the source summary' : `, ${ratio} of the span`})\n  ours:   ${JSON.stringify(row.ours)}${row.theirs ? `\n  theirs: ${JSON.stringify(row.theirs)}` : ''}`);
}
}

if (process.argv[1] && /category-survival\.ts$/.test(process.argv[1])) main();
