/**
 * `npm run -s cli -- roundtrip FILE...`
 * For each file: import, serialize with no compaction, and compare record for record and byte for
 * byte with the original (the lossless-export promise of DESIGN.md). One line per file, then
 * `N passed, N failed`; exit code 1 on any failure. Files that are not transcripts (SOURCES.md,
 * READMEs, directories) are skipped with a note and not counted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { userMessage } from '../errors';
import { importFile } from '../formats/import';
import { formatById } from '../formats/registry';
import type { Transcript } from '../model/types';
import { sourceFromBytes, type SourceFile } from '../read/source';
import { EXIT_CODES_HELP, readInputFile } from './_files';

export const summary = 'Import and re-export each FILE with no compaction; check records and bytes are identical';

const NOT_TRANSCRIPTS = /\.(md|markdown|rst|html?|png|jpe?g|gif|svg|pdf|csv|ts|js|py)$/i;
const NOT_TRANSCRIPT_NAMES = /^(readme|license|licence|notice|sources|changelog)(\..*)?$/i;

export type RoundtripOutcome = { kind: 'ok'; records: number; format: string } | { kind: 'fail'; reason: string } | { kind: 'skip'; reason: string };

/** The file's text as the importer saw it (decompressed, BOM stripped, decoded). */
function originalText(source: SourceFile): string {
  return source.text();
}

export function roundtripBytes(name: string, bytes: Uint8Array, options: { conversation?: number; format?: string } = {}): RoundtripOutcome {
  let t: Transcript;
  const source = sourceFromBytes(name, bytes);
  try {
    t = importFile(source, options).transcript;
  } catch (e) {
    return { kind: 'fail', reason: userMessage(e) };
  }
  const mod = formatById(t.format)!;
  let out: string;
  let outBytes: Uint8Array | undefined;
  try {
    const result = mod.serialize(t);
    out = result.text;
    outBytes = result.bytes; // binary formats (Inspect .eval zips)
  } catch (e) {
    return { kind: 'fail', reason: `export failed: ${userMessage(e)}` };
  }
  // Record for record: re-import the export under the same format.
  let back: Transcript;
  try {
    back = importFile(sourceFromBytes(name, outBytes ?? new TextEncoder().encode(out)), { format: t.format, ...(options.conversation !== undefined && { conversation: options.conversation }) }).transcript;
  } catch (e) {
    return { kind: 'fail', reason: `the export does not re-import: ${userMessage(e)}` };
  }
  if (back.records.length !== t.records.length) return { kind: 'fail', reason: `${back.records.length} records after round-trip, ${t.records.length} before` };
  for (let i = 0; i < t.records.length; i++) {
    if (back.records[i].text !== t.records[i].text) return { kind: 'fail', reason: `record ${i} differs (line ${t.records[i].line})` };
  }
  // Invalid UTF-8 was decoded as U+FFFD: the text matches, the bytes an export writes do not.
  const bad = t.warnings.find((w) => w.code === 'decoding:invalid-utf8');
  if (bad) return { kind: 'fail', reason: `not byte-identical: ${bad.message}` };
  if (back.messages.length !== t.messages.length) return { kind: 'fail', reason: `${back.messages.length} messages after round-trip, ${t.messages.length} before` };
  // Byte for byte: the archive itself for binary formats, else the decoded text.
  if (outBytes) {
    if (!sameBytes(outBytes, source.bytes)) return { kind: 'fail', reason: `the exported archive differs from the original (${outBytes.length} bytes, original ${source.bytes.length})` };
  } else if (source.isZip) {
    return { kind: 'fail', reason: 'the format exported text for a zip archive' };
  } else {
    const original = originalText(source);
    if (out !== original) {
      let at = 0;
      while (at < out.length && at < original.length && out.charCodeAt(at) === original.charCodeAt(at)) at++;
      return { kind: 'fail', reason: `bytes differ at offset ${at} (export ${out.length} chars, original ${original.length})` };
    }
  }
  return { kind: 'ok', records: t.records.length, format: t.format };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function roundtripFile(file: string): RoundtripOutcome {
  const base = path.basename(file);
  if (!fs.existsSync(file)) return { kind: 'fail', reason: 'no such file' };
  if (fs.statSync(file).isDirectory()) return { kind: 'skip', reason: 'a directory' };
  if (NOT_TRANSCRIPTS.test(base) || NOT_TRANSCRIPT_NAMES.test(base)) return { kind: 'skip', reason: 'not a transcript' };
  let bytes: Uint8Array;
  try {
    bytes = readInputFile(file);
  } catch (e) {
    return { kind: 'fail', reason: userMessage(e) };
  }
  return roundtripBytes(base, bytes);
}

export async function run(args: string[]): Promise<number> {
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    (args.length ? process.stdout : process.stderr).write(`Usage: npm run -s cli -- roundtrip FILE...\n${EXIT_CODES_HELP}\n`);
    return args.length ? 0 : 2;
  }
  let passed = 0;
  let failed = 0;
  for (const file of args) {
    const r = roundtripFile(file);
    if (r.kind === 'ok') {
      passed++;
      process.stdout.write(`ok  ${file}  (${r.records} records)\n`);
    } else if (r.kind === 'skip') {
      process.stdout.write(`skip  ${file}: ${r.reason} (not counted)\n`);
    } else {
      failed++;
      process.stdout.write(`FAIL ${file}: ${r.reason}\n`);
    }
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}
