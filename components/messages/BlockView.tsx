'use client';

import type { Block, Role, ToolCallBlock } from '@/lib/model/types';
import { budgetKind } from '@/lib/tokens/totals';
import { KIND_STYLE } from '../ui/kinds';
import { formatBytes, formatTokens } from '../ui/format';
import type { AttachedResult } from '@/lib/engine/rows';
import { CollapsibleText, PlainText } from './Collapsible';
import { Markdown } from './Markdown';
import { decodeResult } from './decode-result';
import { FateBadge, useFateClass } from './FateBadge';
import { PinToggle } from './PinToggle';

export function KindChip({ role, block, label }: { role: Role; block: Pick<Block, 'kind' | 'tokens'>; label?: string }) {
  const kind = budgetKind(role, block);
  const style = KIND_STYLE[kind];
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap text-[11px] text-neutral-500 dark:text-neutral-400">
      <span className="inline-block h-2 w-2 rounded-sm" style={{ backgroundColor: style.color }} aria-hidden="true" />
      <span className="font-medium" style={{ color: style.color }}>
        {label ?? style.label}
      </span>
      <span className="tabular-nums">{formatTokens(block.tokens)} tok</span>
    </span>
  );
}

function inputSummary(input: unknown): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string') return input;
  if (typeof input !== 'object') return String(input);
  return JSON.stringify(input, null, 2);
}

/** One-line gist of a call's input: the path or command a reader scans for. */
function inputGist(call: ToolCallBlock): string {
  const i = call.input;
  if (i && typeof i === 'object' && !Array.isArray(i)) {
    const o = i as Record<string, unknown>;
    for (const k of ['file_path', 'path', 'command', 'cmd', 'pattern', 'query', 'url', 'description']) {
      const v = o[k];
      if (typeof v === 'string' && v) return v.length > 120 ? v.slice(0, 119) + '…' : v;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ').slice(0, 120);
    }
  }
  if (typeof i === 'string') return i.split('\n')[0].slice(0, 120);
  return '';
}

function ToolCallView({ role, block, results }: { role: Role; block: ToolCallBlock; results: AttachedResult[] }) {
  const full = inputSummary(block.input);
  const gist = inputGist(block);
  return (
    <div className="rounded-md border border-amber-300/70 dark:border-amber-700/50" data-testid="tool-call" data-tool={block.name}>
      <div className="flex flex-wrap items-center gap-2 border-b border-amber-200/70 bg-amber-50/70 px-2.5 py-1 dark:border-amber-800/40 dark:bg-amber-950/20">
        <span className="font-mono text-xs font-semibold text-amber-800 dark:text-amber-300">{block.name}</span>
        {gist && <span className="min-w-0 flex-1 truncate font-mono text-xs text-neutral-600 dark:text-neutral-400">{gist}</span>}
        <KindChip role={role} block={block} label="call" />
        <FateBadge blockId={block.id} />
      </div>
      {full && full !== gist && (
        <details className="px-2.5 py-1">
          <summary className="cursor-pointer text-[11px] text-neutral-500">input</summary>
          <CollapsibleText text={full} tokens={block.tokens} render={(v) => <PlainText text={v} mono />} />
        </details>
      )}
      {results.length === 0 && <p className="px-2.5 py-1 text-[11px] italic text-neutral-500">no result recorded</p>}
      {results.map((r) => (
        <AttachedResultView key={r.block.id} result={r} />
      ))}
    </div>
  );
}

/** A tool result's text, a Codex JSON-string output decoded for reading (components/messages/decode-result.ts). */
function ResultText({ content, tokens }: { content: string; tokens: number }) {
  const d = decodeResult(content);
  return (
    <>
      {d.meta && (
        <p className="mb-0.5 font-mono text-[11px] text-neutral-500" data-testid="result-meta" title="From the result's metadata (the file holds the output as a JSON string)">
          {d.meta}
        </p>
      )}
      <CollapsibleText text={d.text} tokens={tokens} render={(v) => <PlainText text={v} mono />} />
    </>
  );
}

function AttachedResultView({ result: r }: { result: AttachedResult }) {
  const faded = useFateClass(r.block.id);
  return (
    <div className="border-t border-orange-200/70 px-2.5 py-1.5 dark:border-orange-900/40" data-testid="tool-result" data-block-id={r.block.id}>
      <div className="mb-1 flex items-center gap-2">
        <span className={`text-[11px] font-semibold ${r.block.isError ? 'text-red-700 dark:text-red-400' : 'text-orange-700 dark:text-orange-400'}`}>{r.block.isError ? 'error' : 'result'}</span>
        <KindChip role="user" block={r.block} label="tool result" />
        <FateBadge blockId={r.block.id} />
        <span className="ml-auto">
          <PinToggle pin={{ kind: 'block', blockId: r.block.id, label: `${r.block.name ?? 'tool'} result of message #${r.messageIndex + 1}` }} what={`${r.block.name ?? 'tool'} result (message #${r.messageIndex + 1})`} />
        </span>
      </div>
      <div className={faded}>
        <ResultText content={r.block.content} tokens={r.block.tokens} />
      </div>
    </div>
  );
}

export function BlockView({ role, block, results }: { role: Role; block: Block; results: Record<string, AttachedResult[]> }) {
  const faded = useFateClass(block.id);
  const view = <BlockBody role={role} block={block} results={results} />;
  if (!faded || block.kind === 'tool_call') return view;
  return (
    // The badge floats: the block's text wraps around it instead of running under it.
    <div className="flow-root">
      <div className="float-right mb-1 ml-2">
        <FateBadge blockId={block.id} />
      </div>
      <div className={faded}>{view}</div>
    </div>
  );
}

function BlockBody({ role, block, results }: { role: Role; block: Block; results: Record<string, AttachedResult[]> }) {
  switch (block.kind) {
    case 'text':
      return (
        <div>
          <CollapsibleText text={block.text} tokens={block.tokens} render={(v) => (role === 'assistant' ? <Markdown text={v} /> : <PlainText text={v} />)} />
        </div>
      );
    case 'reasoning':
      return (
        <details className="rounded-md border border-violet-300/60 px-2.5 py-1 dark:border-violet-800/50">
          <summary className="flex cursor-pointer items-center gap-2 text-xs text-violet-700 dark:text-violet-300">
            <span className="font-medium">Thinking</span>
            <KindChip role={role} block={block} label="reasoning" />
            {block.opaque !== undefined && <span className="text-[10px] text-neutral-500">signed</span>}
            {block.redacted && <span className="text-[10px] text-neutral-500">redacted</span>}
          </summary>
          <div className="pt-1 text-neutral-700 dark:text-neutral-300">
            <CollapsibleText text={block.text || '(encrypted: no readable text)'} tokens={block.tokens} render={(v) => <PlainText text={v} />} />
          </div>
        </details>
      );
    case 'tool_call':
      return <ToolCallView role={role} block={block} results={results[block.callId] ?? []} />;
    case 'tool_result':
      return (
        <div className="rounded-md border border-orange-300/60 px-2.5 py-1.5 dark:border-orange-900/50" data-testid="tool-result" data-block-id={block.id}>
          <div className="mb-1 flex items-center gap-2">
            <span className="font-mono text-xs text-orange-700 dark:text-orange-400">{block.name ?? block.callId}</span>
            <KindChip role={role} block={block} label={block.isError ? 'tool error' : 'tool result'} />
            <PinToggle pin={{ kind: 'block', blockId: block.id, label: `${block.name ?? 'tool'} result ${block.callId}` }} what={`${block.name ?? 'tool'} result`} />
          </div>
          <ResultText content={block.content} tokens={block.tokens} />
        </div>
      );
    case 'attachment':
      return (
        <div className="flex items-center gap-2 rounded-md border border-pink-300/60 px-2.5 py-1.5 text-xs dark:border-pink-900/50" data-testid="attachment">
          {/* Only a data: URL of a raster type, checked at import (lib/formats/images.ts): nothing is fetched, nothing runs. */}
          {block.thumbnail?.startsWith('data:image/') && (
            // eslint-disable-next-line @next/next/no-img-element
            <img src={block.thumbnail} alt={`${block.mediaType} attachment`} loading="lazy" decoding="async" className="max-h-24 max-w-[10rem] rounded border border-neutral-200 bg-neutral-50 object-contain dark:border-neutral-700 dark:bg-neutral-900" data-testid="attachment-thumbnail" />
          )}
          <span className="font-medium text-pink-700 dark:text-pink-400">{block.mediaType}</span>
          {block.width !== undefined && block.height !== undefined && (
            <span className="tabular-nums text-neutral-500" data-testid="attachment-size">
              {block.width}×{block.height}
            </span>
          )}
          {block.name && <span className="font-mono">{block.name}</span>}
          {block.bytes !== undefined && <span className="text-neutral-500">{formatBytes(block.bytes)}</span>}
          <KindChip role={role} block={block} label="attachment" />
        </div>
      );
    case 'summary':
      return (
        <div className="rounded-md border-l-4 border-teal-500 bg-teal-50/60 px-3 py-2 dark:bg-teal-950/20" data-testid="summary-block">
          <div className="mb-1 flex items-center gap-2">
            <span className="text-xs font-semibold text-teal-700 dark:text-teal-300">Summary written by the source's compaction</span>
            <KindChip role={role} block={block} />
          </div>
          <CollapsibleText text={block.text} tokens={block.tokens} render={(v) => <Markdown text={v} />} />
        </div>
      );
    case 'opaque':
      return (
        <div className="rounded-md border border-neutral-300 px-2.5 py-1.5 dark:border-neutral-700">
          <div className="mb-1 flex items-center gap-2">
            <span className="font-mono text-xs text-neutral-600 dark:text-neutral-400">{block.type}</span>
            <KindChip role={role} block={block} />
          </div>
          <CollapsibleText text={block.text} tokens={block.tokens} render={(v) => <PlainText text={v} mono />} />
        </div>
      );
  }
}
