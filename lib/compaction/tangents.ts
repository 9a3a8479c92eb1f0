/**
 * A deterministic tangent classifier (RFD 036 classify-tangents proposes, the user confirms).
 * A turn is proposed when
 *  - its prompt opens like an aside ("btw", "unrelated", "quick question", "side note",
 *    "off topic", …), or
 *  - it names files/URLs/ids — at least MIN_ISOLATED of them — and none of them appear anywhere
 *    else in the session (the work in it touched nothing the rest of the conversation cares about).
 *    One or two names seen once are no evidence: the end of a task names a CHANGELOG, a version,
 *    a commit once (issue 30: "Add the changelog entry", "Commit with a good message" were
 *    proposed for "1 identifier appears in no other turn"). A prompt that wraps the task up
 *    (commit, push, PR, changelog, version bump, release) is never proposed by isolation.
 * Turns in keep_last and the first prompt (the task itself) are never proposed. An LLM classifier
 * can replace this: the reducer only takes the chosen turn numbers.
 */
import type { Transcript } from '../model/types';
import { blockText } from '../tokens/count';
import { extractIdentifiers } from './lost';

export interface TangentProposal {
  turn: number;
  score: number;
  reason: string;
}

/** Identifiers a turn must name, none seen elsewhere, to be proposed as isolated work. */
export const MIN_ISOLATED = 3;

/** Prompts that finish the task in hand: the end of the work, not a tangent from it. */
const WRAP_UP = /\b(commit|push|pull request|PR|changelog|release|bump|version|merge|tag|deploy|publish|wrap up)\b/i;

const ASIDE = /^\s*(btw|by the way|unrelated|quick question|side (note|question)|off[- ]topic|random(ly)? question|tangent|aside|one more unrelated|not related)\b/i;

export function proposeTangents(log: Transcript, options: { keepLast?: number } = {}): TangentProposal[] {
  const keepLast = options.keepLast ?? 1;
  const turnIds = new Map<number, Set<string>>();
  const prompts = new Map<number, string>();
  for (const m of log.messages) {
    if (m.sidechain) continue;
    let ids = turnIds.get(m.turn);
    if (!ids) turnIds.set(m.turn, (ids = new Set()));
    for (const b of m.blocks) {
      for (const id of extractIdentifiers(blockText(b))) if (id.kind !== 'error') ids.add(`${id.kind}:${id.value}`);
      if (m.role === 'user' && !m.meta && b.kind === 'text' && !prompts.has(m.turn)) prompts.set(m.turn, b.text);
    }
  }
  // How many turns mention each identifier.
  const spread = new Map<string, number>();
  for (const ids of turnIds.values()) for (const id of ids) spread.set(id, (spread.get(id) ?? 0) + 1);
  const firstPromptTurn = Math.min(...[...prompts.keys()]);
  const lastCandidate = log.turnCount - 1 - keepLast;
  const out: TangentProposal[] = [];
  for (const [turn, ids] of [...turnIds.entries()].sort((a, b) => a[0] - b[0])) {
    if (turn > lastCandidate || turn === firstPromptTurn || !prompts.has(turn)) continue;
    const prompt = prompts.get(turn)!;
    const aside = ASIDE.exec(prompt);
    const isolated = ids.size >= MIN_ISOLATED && [...ids].every((id) => spread.get(id) === 1) && !WRAP_UP.test(prompt);
    if (!aside && !isolated) continue;
    const reasons: string[] = [];
    if (aside) reasons.push(`opens as an aside ("${aside[0].trim()}")`);
    if (isolated) reasons.push(`its ${ids.size} identifier(s) appear in no other turn`);
    out.push({ turn, score: (aside ? 0.6 : 0) + (isolated ? 0.4 : 0), reason: reasons.join('; ') });
  }
  return out;
}
