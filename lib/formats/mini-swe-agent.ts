/**
 * mini-swe-agent `.traj.json` (FORMATS.md §7b; SWE-agent/mini-swe-agent:docs/usage/output_files.md).
 * `{info, messages, trajectory_format: "mini-swe-agent-1.x"}`, or a bare messages array (the test
 * fixture in the corpus). Messages are OpenAI-like; each assistant message holds exactly ONE action
 * in a ```mswea_bash_command (v2) or ```bash (v1) block and the next user message is its output
 * (`<returncode>…</returncode><output>…`). Tool-call models (v2) use `tool_calls` / `role:"tool"`.
 *
 * Detection rule for the bare array (it is otherwise a plain Chat array): an assistant message
 * whose content has a ```mswea_bash_command block, or an `extra` object on a message (mini-swe-agent's
 * own field), or a ```bash action answered by a user message starting with `<returncode>`.
 */
import type { Projection } from '../model/projection';
import { TranscriptBuilder } from '../model/builder';
import type { Transcript } from '../model/types';
import { readJsonDocument } from '../read/json-doc';
import { joinRecords } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import { parsedRoot } from './detect';
import { addChatLikeMessages, rewriteChatLikeRecord } from './swe-agent';
import { decodingWarnings, isObj, num, own, projectedText, serializeRecordDocument, str, structureError, type Obj } from './traj-shared';
import type { DetectInput, FormatModule, ParseResult, SerializeResult } from './types';

const ACTION_FENCE = /```(mswea_bash_command|bash)[ \t]*\r?\n([\s\S]*?)\r?\n?```/g;

/** The single action of an assistant message, or null (none, or several: a format error the agent answers with a hint). */
function miniTextAction(m: Obj): string | null {
  const content = own(m, 'content');
  if (typeof content !== 'string') return null;
  const found = [...content.matchAll(ACTION_FENCE)];
  return found.length === 1 ? found[0][2] : null;
}

function messagesOf(root: unknown): unknown[] | null {
  if (Array.isArray(root)) return root;
  if (isObj(root) && Array.isArray(root.messages)) return root.messages;
  return null;
}

export function detectMiniSweAgent(input: DetectInput): number | null {
  // A document written on one line (json.dump without indent) reaches detection as one JSONL record.
  if (input.container !== 'json' && !(input.container === 'jsonl' && input.values.length === 1)) return null;
  const root = input.values[0];
  if (isObj(root)) {
    const tf = str(root.trajectory_format);
    if (Array.isArray(root.messages) && tf !== undefined && tf.startsWith('mini-swe-agent')) return 0.97;
    if (Array.isArray(root.messages) && isObj(root.info) && root.info.mini_version !== undefined) return 0.95;
  }
  const messages = messagesOf(root);
  if (!messages || messages.length === 0) return null;
  const sample = messages.slice(0, 200);
  if (!sample.every((m) => isObj(m) && typeof m.role === 'string')) return null;
  let mswea = false;
  let extra = false;
  let bashAnswered = false;
  sample.forEach((m, i) => {
    const o = m as Obj;
    if (isObj(o.extra)) extra = true;
    const c = own(o, 'content');
    if (o.role !== 'assistant' || typeof c !== 'string') return;
    if (c.includes('```mswea_bash_command')) mswea = true;
    const next = sample[i + 1] as Obj | undefined;
    if (c.includes('```bash') && next && next.role === 'user' && typeof next.content === 'string' && next.content.trimStart().startsWith('<returncode>')) bashAnswered = true;
  });
  if (mswea || extra) return 0.92;
  if (bashAnswered) return 0.88;
  return null;
}

function parse(file: SourceFile): ParseResult {
  const text = file.text();
  const root = parsedRoot(file);
  const bare = Array.isArray(root);
  if (!bare) {
    if (!isObj(root)) throw structureError(file.name, '$', 'a messages array or an object with "messages"', root);
    if (!Array.isArray(root.messages)) throw structureError(file.name, '$.messages', 'an array of messages', root.messages);
  }
  const doc = readJsonDocument(text, file.name, bare ? [] : ['messages'], root, file.bom);
  const builder = new TranscriptBuilder();
  const messageOf = addChatLikeMessages({ file: file.name, builder, records: doc.records, arrayPath: bare ? '$' : '$.messages', parseTextActions: miniTextAction, actionToolName: () => 'bash' });

  // Per-call usage: extra.response.usage on each assistant message (the raw API response).
  let model: string | undefined;
  doc.records.forEach((r, i) => {
    const m = r.value as Obj;
    if (m.role !== 'assistant' || !isObj(m.extra) || !isObj(m.extra.response)) return;
    const resp = m.extra.response;
    model = str(resp.model) ?? model;
    const u = resp.usage;
    if (!isObj(u)) return;
    const promptTokens = num(u.prompt_tokens);
    const details = isObj(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
    const cacheRead = num(details.cached_tokens) ?? num(u.cache_read_input_tokens) ?? 0;
    const cacheWrite = num(u.cache_creation_input_tokens) ?? 0;
    builder.addUsage({
      messageIndex: messageOf[i],
      ...(str(resp.model) && { model: str(resp.model) }),
      // OpenAI prompt_tokens include cached tokens; Anthropic input_tokens do not. Canonical input is the uncached part.
      input: promptTokens !== undefined ? Math.max(0, promptTokens - cacheRead) : num(u.input_tokens) ?? 0,
      cacheRead,
      cacheWrite,
      output: num(u.completion_tokens) ?? num(u.output_tokens) ?? 0,
    });
  });
  const info = !bare && isObj((root as Obj).info) ? ((root as Obj).info as Obj) : undefined;
  const config = info && isObj(info.config) ? info.config : undefined;
  const cfgModel = config && isObj(config.model) ? str(config.model.model_name) : undefined;
  model = cfgModel ?? model;
  const extra: Record<string, unknown> = { bare };
  if (info && isObj(info.model_stats)) extra.modelStats = { cost: num(info.model_stats.instance_cost) ?? null, apiCalls: num(info.model_stats.api_calls) ?? null };
  const title = (info && str(info.instance_id)) ?? file.name.replace(/\.traj\.json$|\.json$/, '');
  const transcript = builder.build({ format: 'mini-swe-agent', fileName: file.name, title, model, records: doc.records, frame: doc.frame, style: doc.style, extra, warnings: decodingWarnings(text, file.name) });
  return { transcript, warnings: [] };
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  if (!projection) return { text: joinRecords(t.frame, t.records.map((r) => r.text)), fileName: t.fileName, mimeType: 'application/json', dropped: [] };
  const bare = t.extra?.bare === true;
  const text = serializeRecordDocument(t, projection, {
    depth: bare ? 1 : 2,
    rewrite: rewriteChatLikeRecord,
    synthetic: (pm) => [{ role: 'user', content: projectedText(pm) }],
  });
  return { text, fileName: t.fileName.replace(/(\.traj)?\.json$|$/, '.compacted.traj.json'), mimeType: 'application/json', dropped: [] };
}

export const miniSweAgentFormat: FormatModule = {
  id: 'mini-swe-agent',
  label: 'mini-swe-agent trajectory',
  specUrl: 'https://github.com/SWE-agent/mini-swe-agent/blob/main/docs/usage/output_files.md',
  extensions: ['.json'],
  detect: detectMiniSweAgent,
  parse,
  serialize,
};

export default miniSweAgentFormat;
