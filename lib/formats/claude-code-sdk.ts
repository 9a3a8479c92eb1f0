/**
 * Claude Code headless / Agent SDK output: `claude -p --output-format json` (a JSON array of SDK
 * messages) or `--output-format stream-json` (the same messages, one per line). Messages are
 * `{type:"system",subtype:"init"}`, `{type:"assistant",message,session_id}`, `{type:"user",message}`
 * and a final `{type:"result",usage,total_cost_usd,num_turns,result}` (FORMATS.md §4, §8).
 * Reference: https://docs.claude.com/en/docs/claude-code/sdk/sdk-headless
 * The line → message code is shared with claude-code.ts.
 */
import type { Projection } from '../model/projection';
import type { Transcript } from '../model/types';
import { isJsonlFile } from '../read/head';
import { readJsonDocument } from '../read/json-doc';
import { readJsonl } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import { parseClaudeRecords, serializeClaudeRecords } from './claude-code';
import { parsedRoot } from '../read/json-root';
import { compactedFileName, defaultSeparator, isRecord, joinOutput } from './serialize-util';
import type { DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';

const SDK_TYPES = new Set(['system', 'assistant', 'user', 'result']);

/** An SDK message: a known type, snake_case session_id (or a user message), never the session envelope. */
function isSdkMessage(v: unknown): boolean {
  if (!isRecord(v) || typeof v.type !== 'string' || !SDK_TYPES.has(v.type)) return false;
  if ('parentUuid' in v || 'sessionId' in v) return false; // Claude Code session lines
  if (v.type === 'system') return v.subtype === 'init' || typeof v.session_id === 'string';
  if (v.type === 'result') return typeof v.session_id === 'string' || 'num_turns' in v || 'total_cost_usd' in v || 'result' in v;
  return isRecord(v.message) && (typeof v.session_id === 'string' || v.type === 'user');
}

function detect(input: DetectInput): number | null {
  if (input.container === 'jsonl') {
    const values = input.values.filter(isRecord);
    if (values.length === 0 || !values.every(isSdkMessage)) return null;
    return values.some((v) => typeof v.session_id === 'string') ? 0.85 : null;
  }
  if (input.container !== 'json') return null;
  const root = input.values[0];
  if (!Array.isArray(root) || root.length === 0) return null;
  const head = root.slice(0, 10);
  if (!head.every(isSdkMessage)) return null;
  return head.some((v) => isRecord(v) && typeof v.session_id === 'string') ? 0.85 : 0.5;
}

function parse(file: SourceFile, options?: ParseOptions): ParseResult {
  const set = isJsonlFile(file) ? readJsonl(file) : readJsonDocument(file.text(), file.name, [], parsedRoot(file), file.bom);
  const result = set.records.map((r) => r.value).find((v) => isRecord(v) && v.type === 'result') as Record<string, unknown> | undefined;
  return parseClaudeRecords('claude-code-sdk', file.name, set, options, {
    fallbackTitle: (reader) => (reader.sessionId ? `Claude Code SDK session ${reader.sessionId}` : file.name),
    ...(result && { extra: { sdkResult: { numTurns: result.num_turns, totalCostUsd: result.total_cost_usd, subtype: result.subtype } } }),
  });
}

function depthOf(t: Transcript): number {
  return t.style.container === 'jsonl' ? 0 : 1;
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const mimeType = t.style.container === 'jsonl' ? 'application/jsonl' : 'application/json';
  if (!projection) {
    return { text: joinOutput(t.frame, t.records.map((r, orig) => ({ orig, text: r.text })), defaultSeparator(t.frame, t.style, depthOf(t))), fileName: t.fileName, mimeType, dropped: [] };
  }
  const { text, dropped } = serializeClaudeRecords(t, projection, { depth: depthOf(t), summaryShape: 'sdk' });
  return { text, fileName: compactedFileName(t, true), mimeType, dropped };
}

export const claudeCodeSdk: FormatModule = {
  id: 'claude-code-sdk',
  label: 'Claude Code SDK output',
  specUrl: 'https://docs.claude.com/en/docs/claude-code/sdk/sdk-headless',
  extensions: ['.json', '.jsonl'],
  detect,
  parse,
  serialize,
};

export default claudeCodeSdk;
