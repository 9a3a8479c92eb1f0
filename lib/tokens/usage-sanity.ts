/**
 * Is the recorded usage plausible next to the content? (issue 31, item 3)
 *
 * A call's recorded prompt (input + cache read + cache write: cached tokens were still sent) can
 * only be more than what the file shows the model was sent before it — the file leaves out the
 * system prompt and tool schemas, never adds to them. Our count of that visible part
 * (calibration.ts `visibleBefore`: the main-chain messages before the call, the source's own
 * compactions applied) is an estimate, off by a tokenizer's margin (the calibration factor is
 * clamped to [0.5, 3]), never by ten times.
 *
 * So a call is implausible when its recorded prompt is under a tenth (IMPLAUSIBLE_FACTOR) of our
 * count, judged only where our count is at least MIN_JUDGED_CONTEXT tokens (a short prompt's
 * count is dominated by what the file leaves out). A session's usage is implausible when most
 * (over IMPLAUSIBLE_SHARE) of its judged main-chain calls are, and at least MIN_IMPLAUSIBLE_CALLS
 * of them. The walk of issue 31 found a file recording 10 tokens a call for a context of 1.5M;
 * every corpus file with recorded usage is at 0.6× or more (lib/tokens/usage-sanity.test.ts).
 *
 * Then the import warns (code `usage:implausible`) and the replay (`simulate`, the Replay page,
 * the Policies overlay) uses our counts instead of the recorded usage, saying so.
 */
import type { Transcript, UsageRecord } from '../model/types';
import { isContextSample, visibleBefore } from './calibration';

export const IMPLAUSIBLE_FACTOR = 10;
export const MIN_JUDGED_CONTEXT = 2_000;
export const IMPLAUSIBLE_SHARE = 0.5;
export const MIN_IMPLAUSIBLE_CALLS = 3;
export const IMPLAUSIBLE_USAGE = 'usage:implausible';

export interface UsagePlausibility {
  /** Main-chain calls with recorded usage whose visible context is at least MIN_JUDGED_CONTEXT. */
  judged: number;
  /** Of those, the calls whose recorded prompt is under our count / IMPLAUSIBLE_FACTOR. */
  low: number;
  implausible: boolean;
  /** The judged call with the smallest recorded / ours (1-based message number, both counts). */
  worst?: { message: number; recorded: number; ours: number };
  /** The smallest recorded / ours over the judged calls. */
  minRatio?: number;
}

type UsageInput = Pick<Transcript, 'messages' | 'markers' | 'tools' | 'usage'>;

/** The start of the run of main-chain assistant messages that ends at `i`: the call's prompt ends before it. */
function callStart(log: UsageInput, i: number): number {
  let s = i;
  while (s > 0 && log.messages[s - 1].role === 'assistant' && !log.messages[s - 1].sidechain) s--;
  return s;
}

const promptOf = (u: UsageRecord) => u.input + u.cacheRead + u.cacheWrite;

export function usagePlausibility(log: UsageInput): UsagePlausibility {
  const records = log.usage.filter((u) => isContextSample(u) && promptOf(u) > 0 && u.messageIndex < log.messages.length && !log.messages[u.messageIndex].sidechain);
  if (records.length === 0) return { judged: 0, low: 0, implausible: false };
  const before = visibleBefore(log);
  let judged = 0;
  let low = 0;
  let worst: UsagePlausibility['worst'];
  let minRatio = Infinity;
  for (const u of records) {
    const ours = before[callStart(log, u.messageIndex)];
    if (!(ours >= MIN_JUDGED_CONTEXT)) continue;
    judged++;
    const recorded = promptOf(u);
    if (recorded * IMPLAUSIBLE_FACTOR < ours) low++;
    const ratio = recorded / ours;
    if (ratio < minRatio) {
      minRatio = ratio;
      worst = { message: u.messageIndex + 1, recorded, ours };
    }
  }
  const implausible = low >= MIN_IMPLAUSIBLE_CALLS && low > judged * IMPLAUSIBLE_SHARE;
  return { judged, low, implausible, ...(worst && { worst, minRatio }) };
}

const n = (x: number) => x.toLocaleString('en-US');

/** The import's warning (and the replay's note), or undefined when the usage is plausible. */
export function implausibleUsageMessage(p: UsagePlausibility): string | undefined {
  if (!p.implausible || !p.worst) return undefined;
  return `The usage recorded in this file is implausible next to its content: ${n(p.low)} of ${n(p.judged)} model calls record a prompt under a tenth of the context the file shows was sent (message ${n(p.worst.message)}: ${n(p.worst.recorded)} tokens recorded, ${n(p.worst.ours)} counted). Replay and simulate use our counts instead of the recorded usage.`;
}
