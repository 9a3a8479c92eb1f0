/**
 * The compaction ledger (issue 26): every compaction of a session as one event — the agent's own
 * (markers in the file), each applied step of ours (per version), and each compaction a replayed
 * policy makes — with what fired it, its numbers, its cost and what it lost.
 */
import type { Survival } from './survival';

export type LedgerBy = 'agent' | 'ours' | 'replay';

export interface LedgerEvent {
  /** Stable within a ledger: `agent:<markerId>`, `ours:<versionId>:<stepId>`, `replay:<policy>:<call>`. */
  id: string;
  by: LedgerBy;
  /** Who, in words: "Claude Code", "Codex", "our step 2 (auto)", "Claude Code auto-compact (replay)". */
  label: string;
  /** `auto` or `manual` (or the source's own word: `context_management`, `window 2`, …). */
  trigger: string;
  /** The level it fired at: tokens before ÷ the context window (agent), the step's budget, the policy's trigger. */
  triggerLevel: { tokens: number; ofWindow?: number } | null;
  /** The policy (replay) or the reducers (ours) that compacted. */
  policy: string | null;
  /** First message after the compaction (where its summary sits). */
  atMessage: number;
  atTurn: number;
  /** Messages [from, to) it took out of the model's view, when known. */
  covers: [number, number] | null;
  tokensBefore: number | null;
  tokensBeforeFrom: 'recorded' | 'estimate' | null;
  /** The recorded context of the next call where usage exists, else our count. */
  tokensAfter: number | null;
  tokensAfterFrom: 'recorded' | 'estimate' | null;
  /** How long it took, where the source records it. */
  durationMs: number | null;
  /** The summarizer's model (Claude Code and Codex compact with the session's model). */
  model: string | null;
  /** Estimated cost of the compaction call itself (recorded where the source bills it). */
  costUsd: number | null;
  costFrom: 'recorded' | 'estimate' | null;
  /** Tokens the next call wrote to the provider's cache, and what that cost. */
  cacheWriteAfter: number | null;
  cacheWriteUsd: number | null;
  /** Calls after it until its savings repay its cost (lib/ledger/break-even.ts), or 'never' within the session. */
  breakEvenCalls: number | 'never' | null;
  /** Model calls after it in the session (the first included): what break-even is measured against. */
  callsAfter: number | null;
  /** The summary it wrote, whole (null: none, or unreadable — an encrypted server compaction). */
  summary: string | null;
  /** What of its span is still in what the model is sent afterwards, by category. */
  survival: Survival | null;
  /** Pins (lib/ledger/pins.ts) whose text was in its span and is not in what the model is sent afterwards. */
  pinsLost: string[];
}

export interface Ledger {
  events: LedgerEvent[];
}
