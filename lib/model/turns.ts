/**
 * Turn segmentation. A turn starts at a user message that is not only tool results (and not
 * harness-injected meta). A turn boundary therefore never falls between a tool call and its
 * result (sven "split safety", Cline SDK isSafeCutBoundary).
 */
import type { Message } from './types';

export function startsTurn(m: Pick<Message, 'role' | 'blocks' | 'meta' | 'sidechain'>): boolean {
  if (m.role !== 'user' || m.meta || m.sidechain) return false;
  if (m.blocks.length === 0) return false;
  return m.blocks.some((b) => b.kind !== 'tool_result');
}

/**
 * Assign `turn` to each message (NOTE mutates the messages: only call from the builder, before
 * freezing). Messages before the first user prompt (system prompt, preamble) are in turn 0.
 * Returns the number of turns.
 */
export function assignTurns(messages: Message[]): number {
  let turn = -1;
  for (const m of messages) {
    if (startsTurn(m) || turn < 0) turn++;
    m.turn = turn;
  }
  return messages.length === 0 ? 0 : turn + 1;
}

/** Index of the first message of each turn. */
export function turnStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  for (const m of messages) if (starts.length === m.turn) starts.push(m.index);
  return starts;
}
