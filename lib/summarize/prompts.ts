/**
 * Prompts for LLM summaries (seed 001 "summarize", seed 003 "Structured" / "Narrative") and the
 * rendering of a span as plain text for the model. Templates are user-editable (Settings); the
 * placeholders are `{{conversation}}`, `{{previous_summary}}`, `{{span}}` and `{{checklist}}`.
 *
 * The span text is transcript text, i.e. untrusted: it is fenced and the system prompt says that
 * instructions inside it are material to summarize, not to follow.
 */
import type { ProjectedMessage } from '../model/projection';
import { callArguments, clip, extractSpanFacts, formatCount } from './facts';
import { DEFAULT_PROMPTS, type PromptTemplate } from './templates';
import { defaultOutputCategory as outputCategoryFor } from '../categories/tools';
import { clipLine, pickSignal, resultCategory, resultStatus, signalLines } from '../categories/signal';

export { CLAUDE_CODE_PROMPT, DEFAULT_PROMPTS, NARRATIVE_PROMPT, STRUCTURED_PROMPT, fnv1a, templateHash, type PromptTemplate } from './templates';

export interface RenderOptions {
  /** Cap on the rendered conversation, in characters (default 120,000 ≈ 30k tokens). */
  maxChars?: number;
  /** Cap per tool result before the overall cap applies (default 4,000). */
  toolResultChars?: number;
}

export const DEFAULT_RENDER: Required<RenderOptions> = { maxChars: 120_000, toolResultChars: 4_000 };

function argsText(block: { input: unknown; rawInput?: string }): string {
  if (block.rawInput !== undefined) return block.rawInput;
  const args = callArguments(block);
  return typeof args === 'string' ? args : (JSON.stringify(args) ?? '');
}

function renderMessage(m: ProjectedMessage, resultCap: number, textCap: number): string {
  const head = `[turn ${m.turn + 1}] ${m.synthetic === 'summary' ? 'SUMMARY' : m.role.toUpperCase()}:`;
  const lines: string[] = [head];
  for (const b of m.blocks) {
    switch (b.kind) {
      case 'text':
        lines.push(clip(b.text, textCap));
        break;
      case 'summary':
        lines.push(`(summary of earlier turns) ${b.text}`);
        break;
      case 'reasoning':
        if (b.text) lines.push(`(thinking) ${clip(b.text, Math.min(textCap, 1000))}`);
        break;
      case 'tool_call':
        lines.push(`→ ${b.name}(${clip(argsText(b), Math.max(300, Math.min(textCap, 2000)))})`);
        break;
      case 'tool_result': {
        // A status only when known: "ok" on a format without an error flag would be a guess.
        const status = resultStatus(b, undefined) === 'error' ? ' ERROR' : '';
        const shown = clip(b.content, resultCap);
        // The error lines a cut dropped (a failure between a test run's preamble and its tally).
        const cutSignal =
          shown.length < b.content.length
            ? pickSignal(signalLines(b.content, resultCategory(b, outputCategoryFor(b.name))), { maxLines: 10, maxChars: 1500, lineChars: 200 })
                .map((x) => clipLine(x.text, 200))
                .filter((l) => !shown.includes(l))
            : [];
        lines.push(`← ${b.name ?? 'tool'}${status}: ${shown}${cutSignal.length ? `\n(error lines from the cut part:)\n${cutSignal.join('\n')}` : ''}`);
        break;
      }
      case 'attachment':
        lines.push(`(attachment ${b.name ?? ''} ${b.mediaType}${b.text ? `: ${clip(b.text, resultCap)}` : ''})`);
        break;
      case 'opaque':
        lines.push(`(${b.type}) ${clip(b.text, resultCap)}`);
        break;
    }
  }
  return lines.join('\n');
}

/**
 * The span as plain text for a model, within `maxChars`. Tool results shrink first (they are the
 * bulk and the least needed verbatim); if that is not enough, messages from the middle of the span
 * are left out with a marker — user messages are always kept (clipped), as they carry the intent.
 */
export function renderSpanForPrompt(messages: readonly ProjectedMessage[], options: RenderOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_RENDER.maxChars;
  const firstCap = options.toolResultChars ?? DEFAULT_RENDER.toolResultChars;
  let rendered: string[] = [];
  for (const resultCap of [firstCap, 1000, 300, 120]) {
    rendered = messages.map((m) => renderMessage(m, resultCap, 8000));
    if (total(rendered) <= maxChars) return rendered.join('\n\n');
  }
  rendered = messages.map((m) => renderMessage(m, 120, 2000));
  if (total(rendered) <= maxChars) return rendered.join('\n\n');

  // Keep user messages, the head and the tail; drop whole non-user messages from the middle outwards.
  const keep = rendered.map(() => true);
  const order = middleOut(messages.length);
  let size = total(rendered);
  const marker = (n: number, chars: number) => `[… ${formatCount(n)} messages (${formatCount(chars)} chars) left out to fit the prompt …]`;
  for (const i of order) {
    if (size <= maxChars - 200) break;
    if (messages[i].role === 'user' && messages[i].blocks.some((b) => b.kind === 'text')) continue;
    keep[i] = false;
    size -= rendered[i].length + 2;
  }
  const out: string[] = [];
  let droppedCount = 0;
  let droppedChars = 0;
  rendered.forEach((text, i) => {
    if (keep[i]) {
      if (droppedCount) out.push(marker(droppedCount, droppedChars));
      droppedCount = 0;
      droppedChars = 0;
      out.push(text);
    } else {
      droppedCount++;
      droppedChars += text.length;
    }
  });
  if (droppedCount) out.push(marker(droppedCount, droppedChars));
  const joined = out.join('\n\n');
  // Still too big (a span of huge user messages): hard cap with the same kind of marker.
  return joined.length <= maxChars ? joined : clip(joined, maxChars - 40);
}

function total(parts: string[]): number {
  return parts.reduce((n, p) => n + p.length + 2, 0);
}

/** Indices from the middle outwards (the head and the tail of a span are the last to go). */
function middleOut(n: number): number[] {
  const mid = Math.floor(n / 2);
  const out: number[] = [];
  for (let d = 0; out.length < n; d++) {
    if (mid + d < n) out.push(mid + d);
    if (d > 0 && mid - d >= 0) out.push(mid - d);
  }
  return out.filter((i) => i > 0 && i < n - 1);
}

/**
 * A checklist of the identifiers the summary must keep (the files the span's tool calls touched),
 * computed mechanically: it anchors the model on what lost.ts will check for.
 */
export function identifierChecklist(messages: readonly ProjectedMessage[], max = 60, maxErrors = 40): string {
  const facts = extractSpanFacts(messages);
  const files = facts.files.filter((f) => !(f.actions.length === 1 && f.actions[0] === 'mentioned')).map((f) => f.path);
  const parts: string[] = [];
  if (files.length) {
    const shown = files.slice(0, max);
    parts.push(`The summary must name these files (from the tool calls in the span): ${shown.map((p) => `\`${p}\``).join(', ')}${files.length > max ? ` and ${files.length - max} more` : ''}.`);
  }
  if (facts.errorMessages.length) {
    const shown = facts.errorMessages.slice(-maxErrors);
    parts.push(
      `It must quote these error lines verbatim, with their turns (from the tool output in the span${facts.errorMessages.length > shown.length ? `; the last ${shown.length} of ${facts.errorMessages.length}` : ''}):\n${shown.map((e) => `- turn${e.turns.length > 1 ? 's' : ''} ${e.turns.map((t) => t + 1).join(', ')}: ${clip(e.text, 240)}`).join('\n')}`,
    );
  }
  return parts.length ? `\n${parts.join('\n')}\n` : '';
}

export interface PromptInput {
  messages: readonly ProjectedMessage[];
  span: [number, number];
  previousSummary?: string;
  /** Size bound for the summary in characters (SummaryRequest.maxChars): becomes the length hint. */
  maxChars?: number;
  /** Tokens the summary replaces (SummaryRequest.spanTokens): said in the length hint. */
  spanTokens?: number;
}

/**
 * The length hint: a summary must be smaller than the turns it replaces (the summarize reducer
 * refuses one that is not, and run.ts rejects such a reply), so the model is told the bound. A
 * template may place it with `{{length}}`; otherwise it is appended, so edited templates get it too.
 */
export function lengthHint(input: Pick<PromptInput, 'maxChars' | 'spanTokens'>): string {
  if (input.maxChars === undefined) return '';
  const words = Math.max(1, Math.round(input.maxChars / 6));
  const replaces = input.spanTokens !== undefined ? `: it replaces turns that take about ${formatCount(input.spanTokens)} tokens, and a summary that is not shorter than them is discarded` : '';
  return `Length: keep the summary under ${formatCount(input.maxChars)} characters (about ${formatCount(words)} words)${replaces}. Prefer exact identifiers over prose.`;
}

/** Fill a template's placeholders. Unknown `{{names}}` are left as they are. */
export function renderPrompt(template: PromptTemplate, input: PromptInput, options: RenderOptions = {}): { system: string; prompt: string } {
  const values: Record<string, string> = {
    conversation: renderSpanForPrompt(input.messages, options),
    previous_summary: input.previousSummary?.trim() ? `Summary of the turns before this span:\n<previous_summary>\n${input.previousSummary.trim()}\n</previous_summary>\n\n` : '',
    // 1-based, like the [turn N] labels of the conversation and the app.
    span: input.span[0] === input.span[1] ? `${input.span[0] + 1}` : `${input.span[0] + 1}–${input.span[1] + 1}`,
    checklist: identifierChecklist(input.messages),
    length: lengthHint(input),
  };
  // One pass over the template: a value that itself contains `{{…}}` (transcript text) is not re-expanded.
  const filled = template.user.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
  const prompt = values.length && !template.user.includes('{{length}}') ? `${filled.trimEnd()}\n\n${values.length}\n` : filled;
  return { system: template.system, prompt };
}
