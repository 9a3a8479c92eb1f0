/**
 * Small transcripts for tests and benchmarks, built through the real TranscriptBuilder (ids,
 * token counts, turns, pairing warnings and deep-freeze exactly as an importer gets them).
 */
import { TranscriptBuilder, type DraftBlock, type DraftMessage } from '../../model/builder';
import type { Transcript } from '../../model/types';

export interface ToolStep {
  name: string;
  input: unknown;
  output: string;
  isError?: boolean;
}

export interface TurnSpec {
  user: string;
  reasoning?: string;
  /** Signed reasoning (Anthropic thinking signature / OpenAI encrypted_content). */
  signed?: boolean;
  tools?: ToolStep[];
  answer?: string;
  attachment?: { mediaType: string; name: string; bytes: number; text?: string };
}

export interface MakeOptions {
  system?: string;
  model?: string;
  tools?: Array<{ name: string; description?: string; parameters?: unknown }>;
  format?: string;
  markers?: Parameters<TranscriptBuilder['addMarker']>[0][];
}

let seq = 0;

/** Build a transcript: one user prompt per turn, optional reasoning, tool calls (each answered), answer. */
export function makeTranscript(turns: TurnSpec[], options: MakeOptions = {}): Transcript {
  const b = new TranscriptBuilder();
  if (options.system) b.addMessage({ role: 'system', blocks: [{ kind: 'text', text: options.system }], recordRefs: [] });
  let call = 0;
  for (const t of turns) {
    const userBlocks: DraftBlock[] = [{ kind: 'text', text: t.user }];
    if (t.attachment) userBlocks.push({ kind: 'attachment', ...t.attachment });
    b.addMessage({ role: 'user', blocks: userBlocks, recordRefs: [] });
    for (const [i, tool] of (t.tools ?? []).entries()) {
      const blocks: DraftBlock[] = [];
      if (i === 0 && t.reasoning) blocks.push({ kind: 'reasoning', text: t.reasoning, ...(t.signed && { opaque: 'sig-' + 'x'.repeat(40) }) });
      const callId = `call_${++call}`;
      blocks.push({ kind: 'tool_call', callId, name: tool.name, input: tool.input });
      b.addMessage({ role: 'assistant', blocks, recordRefs: [] });
      b.addMessage({ role: 'user', blocks: [{ kind: 'tool_result', callId, content: tool.output, isError: tool.isError ?? false }], recordRefs: [] });
    }
    const final: DraftBlock[] = [];
    if (!(t.tools ?? []).length && t.reasoning) final.push({ kind: 'reasoning', text: t.reasoning, ...(t.signed && { opaque: 'sig-' + 'x'.repeat(40) }) });
    if (t.answer !== undefined) final.push({ kind: 'text', text: t.answer });
    if (final.length) b.addMessage({ role: 'assistant', blocks: final, recordRefs: [] } satisfies DraftMessage);
  }
  for (const tool of options.tools ?? []) b.addTool(tool);
  for (const m of options.markers ?? []) b.addMarker(m);
  const built = b.build({
    format: options.format ?? 'test',
    fileName: 'test.json',
    title: 'test',
    ...(options.model && { model: options.model }),
    records: [],
    frame: [''],
    style: { container: 'json', indent: 2, eol: '\n', finalNewline: true },
  });
  return Object.freeze({ ...built, id: `t${++seq}` }) as Transcript;
}

/** Deterministic filler text of about `tokens` tokens (chars/4), with numbered lines. */
export function filler(tokens: number, label = 'line'): string {
  const lines: string[] = [];
  let chars = 0;
  for (let i = 1; chars < tokens * 4; i++) {
    const l = `${label} ${i}: lorem ipsum dolor sit amet ${i * 7}`;
    lines.push(l);
    chars += l.length + 1;
  }
  return lines.join('\n');
}
