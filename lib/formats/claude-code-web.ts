/**
 * Claude Code web session export: `{"loglines":[…]}` where each logline is a Claude Code session
 * line (FORMATS.md §4, §8 JSON rule 5), as read by simonw/claude-code-transcripts.
 * Reference: https://github.com/simonw/claude-code-transcripts
 * The line → message code is shared with claude-code.ts.
 */
import type { Projection } from '../model/projection';
import type { Transcript } from '../model/types';
import { readJsonDocument } from '../read/json-doc';
import type { SourceFile } from '../read/source';
import { parseClaudeRecords, serializeClaudeRecords } from './claude-code';
import { parsedRoot } from '../read/json-root';
import { compactedFileName, defaultSeparator, isRecord, joinOutput } from './serialize-util';
import type { DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';

/** A logline sits in an array inside the root object: two containers around it. */
const LOGLINE_DEPTH = 2;

function detect(input: DetectInput): number | null {
  if (input.container !== 'json') return null;
  const root = input.values[0];
  if (!isRecord(root) || !Array.isArray(root.loglines)) return null;
  const first = root.loglines.find(isRecord);
  if (first === undefined) return root.loglines.length === 0 ? 0.5 : null;
  return typeof first.type === 'string' ? 0.95 : 0.4;
}

function parse(file: SourceFile, options?: ParseOptions): ParseResult {
  return parseClaudeRecords('claude-code-web', file.name, readJsonDocument(file.text(), file.name, ['loglines'], parsedRoot(file), file.bom), options);
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  if (!projection) {
    return { text: joinOutput(t.frame, t.records.map((r, orig) => ({ orig, text: r.text })), defaultSeparator(t.frame, t.style, LOGLINE_DEPTH)), fileName: t.fileName, mimeType: 'application/json', dropped: [] };
  }
  const { text, dropped } = serializeClaudeRecords(t, projection, { depth: LOGLINE_DEPTH, summaryShape: 'session' });
  return { text, fileName: compactedFileName(t, true), mimeType: 'application/json', dropped };
}

export const claudeCodeWeb: FormatModule = {
  id: 'claude-code-web',
  label: 'Claude Code (web export)',
  specUrl: 'https://github.com/simonw/claude-code-transcripts',
  extensions: ['.json'],
  detect,
  parse,
  serialize,
};

export default claudeCodeWeb;
