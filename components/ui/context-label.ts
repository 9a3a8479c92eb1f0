/**
 * The one definition of "context" the UI uses (turn header, timeline hover, Plan panel): what the
 * model is sent at that point = the messages and tools of the file still in its view + the
 * invisible overhead (system prompt and tool schemas the file leaves out, from recorded usage).
 * "Tokens in the log" (Info, library) is another number: every token the file holds.
 */
import { formatTokens } from './format';

export const CONTEXT_DEFINITION =
  'Context: what the model is sent at that point — the messages and tool schemas of the file still in its view, plus the invisible overhead (system prompt and tool schemas the file leaves out, measured from recorded usage). Compaction works on the part from the file.';

export const LOG_DEFINITION = "Tokens in the log: every token the file holds, including what the source's own compaction took out of the model's view.";

export interface ContextParts {
  total: number;
  fromFile: number;
  overhead: number;
  /** "context 29,785 = 7,766 in the file + 22,019 overhead" (or "context 7,766" without overhead). */
  text: string;
}

export function contextParts(fromFile: number, overhead: number): ContextParts {
  const o = Math.max(0, overhead);
  const total = fromFile + o;
  return { total, fromFile, overhead: o, text: o > 0 ? `context ${formatTokens(total)} = ${formatTokens(fromFile)} in the file + ${formatTokens(o)} overhead` : `context ${formatTokens(fromFile)}` };
}
