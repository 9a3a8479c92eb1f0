/**
 * The one checking helper for real fixtures (STYLE.md §6): every corpus file goes through it.
 *  (a) a compact text dump, snapshotted;
 *  (b) detection under the name "unknown" gives the same format;
 *  (c) serialize with no compaction re-emits every record verbatim and the file byte for byte;
 *  (d) the export re-imports to the same messages;
 *  (e) the normalized view is frozen.
 * Used from Vitest (`expect` is passed in so this module has no test-runner import).
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../import';
import { detect } from '../detect';
import { formatById } from '../registry';
import { sourceFromBytes } from '../../read/source';
import { transcriptTotals } from '../../tokens/totals';
import type { Block, Transcript } from '../../model/types';

function short(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

function blockSummary(b: Block): string {
  switch (b.kind) {
    case 'text':
      return `text "${short(b.text, 48)}"`;
    case 'reasoning':
      return `reasoning${b.opaque ? '+sig' : ''}${b.redacted ? ' redacted' : ''} "${short(b.text, 32)}"`;
    case 'tool_call':
      return `tool_call ${b.name} ${b.callId.slice(0, 14)} ${short(b.rawInput ?? JSON.stringify(b.input) ?? '', 40)}`;
    case 'tool_result':
      return `tool_result ${b.name ?? '?'} ${b.callId.slice(0, 14)}${b.isError ? ' ERROR' : ''} "${short(b.content, 32)}"`;
    case 'attachment':
      return `attachment ${b.mediaType}${b.bytes ? ` ${b.bytes}B` : ''}`;
    case 'summary':
      return `summary "${short(b.text, 48)}"`;
    case 'opaque':
      return `opaque ${b.type} "${short(b.text, 32)}"`;
  }
}

/** A compact, stable, human-readable dump of a transcript (head and tail of long ones). */
export function dumpTranscript(t: Transcript, head = 30, tail = 8): string {
  const totals = transcriptTotals(t);
  const lines: string[] = [];
  lines.push(
    `format=${t.format} title="${short(t.title, 50)}" model=${t.model ?? '-'} records=${t.records.length} messages=${t.messages.length} turns=${t.turnCount} tools=${t.tools.length} markers=${t.markers.length} usage=${t.usage.length} tokens=${totals.total}`,
  );
  lines.push('byKind ' + Object.entries(totals.byKind).filter(([, v]) => v > 0).map(([k, v]) => `${k}=${v}`).join(' '));
  for (const m of t.markers) lines.push(`marker ${m.source} at=${m.atMessage}${m.covers ? ` covers=${m.covers.join('-')}` : ''}${m.trigger ? ` trigger=${m.trigger}` : ''}${m.tokensBefore ? ` before=${m.tokensBefore}` : ''}${m.summary ? ` "${short(m.summary, 40)}"` : ''}`);
  const warn = new Map<string, number>();
  for (const w of t.warnings) warn.set(w.code, (warn.get(w.code) ?? 0) + 1);
  for (const [code, n] of warn) lines.push(`warning ${code} ×${n}`);
  const show = (i: number) => {
    const m = t.messages[i];
    const flags = `${m.meta ? ' meta' : ''}${m.sidechain ? ' side' : ''}`;
    const blocks = m.blocks.map((b) => `${blockSummary(b)} · ${b.tokens}`).join(' | ');
    lines.push(`#${i} t${m.turn} ${m.role}${flags}: ${blocks}`);
  };
  const n = t.messages.length;
  if (n <= head + tail) for (let i = 0; i < n; i++) show(i);
  else {
    for (let i = 0; i < head; i++) show(i);
    lines.push(`… ${n - head - tail} messages …`);
    for (let i = n - tail; i < n; i++) show(i);
  }
  return lines.join('\n');
}

interface ExpectLike {
  (actual: unknown, message?: string): {
    toBe(v: unknown): void;
    toEqual(v: unknown): void;
    toMatchSnapshot(): void;
    toBeGreaterThan(v: number): void;
  };
}

export interface FixtureCheckOptions {
  /** Expected format id. */
  format: string;
  /** Conversation index of a container file. */
  conversation?: number;
}

/** Run all checks on one real file. Returns the transcript for further assertions. */
export function checkFixture(file: string, expect: ExpectLike, options: FixtureCheckOptions): Transcript {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const name = path.basename(file);
  const { transcript: t } = importBytes(name, bytes, { conversation: options.conversation });
  expect(t.format, 'detected format').toBe(options.format);
  expect(t.messages.length, 'message count').toBeGreaterThan(0);

  // (a) the dump
  expect(dumpTranscript(t)).toMatchSnapshot();

  // (b) content decides, not the name
  const again = detect(sourceFromBytes('unknown', bytes));
  expect(again.format.id, 'detection under the name "unknown"').toBe(options.format);

  // (c) lossless round-trip, record for record, then byte for byte
  const mod = formatById(t.format)!;
  const out = mod.serialize(t);
  const { transcript: back } = importBytes(name, new TextEncoder().encode(out.text), { format: t.format, conversation: options.conversation });
  expect(back.records.length, 'record count after round-trip').toBe(t.records.length);
  for (let i = 0; i < t.records.length; i++) {
    if (back.records[i].text !== t.records[i].text) expect(back.records[i].text, `record ${i} (line ${t.records[i].line})`).toBe(t.records[i].text);
  }
  const original = new TextDecoder().decode(bytes.subarray(t.style.bom ? 3 : 0));
  if (out.text !== original) expect(out.text.length, 'byte-identical export (length)').toBe(original.length);
  expect(out.text === original, 'byte-identical export').toBe(true);

  // (d) same normalized view
  expect(back.messages.length, 'messages after round-trip').toBe(t.messages.length);
  expect(dumpTranscript(back), 'dump after round-trip').toBe(dumpTranscript(t));

  // (e) frozen
  expect(Object.isFrozen(t.messages) && Object.isFrozen(t.messages[0]) && Object.isFrozen(t.messages[0].blocks), 'deep-frozen log').toBe(true);
  return t;
}
