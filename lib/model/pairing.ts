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
  messages.forEach((m, i) => {
    for (const b of m.blocks) {
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
  });
  for (const [id, i] of calls) if (!answered.has(id)) issues.push({ kind: 'missing-result', callId: id, message: i });
  return issues;
}

/** Issues that make a request invalid for an API (a missing result at the very end is an in-flight call, tolerated). */
export function isFatalForExport(issue: PairingIssue, messageCount: number): boolean {
  if (issue.kind === 'missing-result') return issue.message < messageCount - 1;
  return true;
}
