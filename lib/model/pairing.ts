/**
 * The pairing validator: every tool call has exactly one result after it and every result has a
 * call before it. Runs on every import (as warnings), every projection and every export (as errors).
 */
import type { Block, Role } from './types';

export interface PairingIssue {
  kind: 'orphan-result' | 'missing-result' | 'duplicate-call' | 'duplicate-result' | 'result-before-call';
  callId: string;
  /** Index of the message holding the offending block. */
  message: number;
}

interface MessageLike {
  role: Role;
  blocks: readonly (Pick<Block, 'kind'> & { callId?: string })[];
}

export function validatePairing(messages: readonly MessageLike[]): PairingIssue[] {
  const issues: PairingIssue[] = [];
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  // Indexed loops: this pass runs on every new log before V8 has optimized it (totals.ts).
  for (let i = 0; i < messages.length; i++) {
    const blocks = messages[i].blocks;
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (b.kind === 'tool_call') {
        const id = b.callId as string;
        if (calls.has(id)) issues.push({ kind: 'duplicate-call', callId: id, message: i });
        else calls.set(id, i);
      } else if (b.kind === 'tool_result') {
        const id = b.callId as string;
        if (!calls.has(id)) issues.push({ kind: 'orphan-result', callId: id, message: i });
        else if (answered.has(id)) issues.push({ kind: 'duplicate-result', callId: id, message: i });
        else answered.add(id);
      }
    }
  }
  for (const [id, i] of calls) if (!answered.has(id)) issues.push({ kind: 'missing-result', callId: id, message: i });
  return issues;
}

/** Issues that make a request invalid for an API (a missing result at the very end is an in-flight call, tolerated). */
export function isFatalForExport(issue: PairingIssue, messageCount: number): boolean {
  if (issue.kind === 'missing-result') return issue.message < messageCount - 1;
  return true;
}

/**
 * Which occurrence of a tool-call id a result answers, when ids repeat (tau-bench re-uses them
 * across episodes, SWE-agent within one trajectory, some models twice in one message). Each call
 * occurrence gets a unique canonical id: the first keeps the source id, the n-th becomes "id#n"
 * (records keep the source ids; exporters write those). A result answers the first unanswered
 * occurrence of its id in the latest message holding one: two calls `x` in one message are
 * answered in order, and a result after a re-issued call answers that call, not an earlier one
 * left without a result. A result with no unanswered occurrence goes to the latest one (a
 * duplicate result), or keeps its id when no call had it (an orphan).
 */
export class CallOccurrences {
  private uses = new Map<string, number>();
  private open = new Map<string, Array<{ canonical: string; group: number }>>();
  private latest = new Map<string, string>();
  /** Occurrences renamed "id#n" (n ≥ 2). */
  renamed = 0;

  /** A call with source id `id`, made in message (or other group) `group`: its canonical id. */
  call(id: string, group: number): string {
    const n = (this.uses.get(id) ?? 0) + 1;
    this.uses.set(id, n);
    const canonical = n === 1 ? id : `${id}#${n}`;
    if (n > 1) this.renamed++;
    const open = this.open.get(id);
    if (open) open.push({ canonical, group });
    else this.open.set(id, [{ canonical, group }]);
    this.latest.set(id, canonical);
    return canonical;
  }

  /** The canonical id of the call occurrence a result for source id `id` answers. */
  result(id: string): string {
    const open = this.open.get(id);
    if (open && open.length > 0) {
      const group = open[open.length - 1].group;
      const k = open.findIndex((o) => o.group === group);
      return open.splice(k, 1)[0].canonical;
    }
    return this.latest.get(id) ?? id;
  }

  /** Has `id` been used by more than one call? */
  reused(id: string): boolean {
    return (this.uses.get(id) ?? 0) > 1;
  }
}

/** The source id of a canonical call id ("x#2" → "x"). */
export function sourceCallId(canonical: string): string {
  return canonical.replace(/#\d+$/, '');
}

/**
 * Issues of `after` that `before` does not have, counted per kind and call id: a known issue
 * excuses one issue of its kind and id, not every one (a duplicate result counts as an orphan one). With `bySourceId` ids compare by their
 * source id: a file written and read back numbers re-used ids afresh ("x#2" may come back as
 * "x" once the first "x" was removed), so only the counts per source id can be compared.
 */
export function newPairingIssues(before: readonly PairingIssue[], after: readonly PairingIssue[], opts: { bySourceId?: boolean } = {}): PairingIssue[] {
  // A second result for a call and a result for no call are one thing, a result nothing waits for:
  // the first becomes the second when the answered pair before it leaves the context.
  const kind = (k: PairingIssue['kind']) => (k === 'duplicate-result' || k === 'result-before-call' ? 'orphan-result' : k);
  const key = (i: PairingIssue) => `${kind(i.kind)}:${opts.bySourceId ? sourceCallId(i.callId) : i.callId}`;
  const known = new Map<string, number>();
  for (const i of before) known.set(key(i), (known.get(key(i)) ?? 0) + 1);
  const fresh: PairingIssue[] = [];
  for (const i of after) {
    const n = known.get(key(i)) ?? 0;
    if (n > 0) known.set(key(i), n - 1);
    else fresh.push(i);
  }
  return fresh;
}
