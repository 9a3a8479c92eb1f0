/**
 * Pins (issue 26 §4): what no compaction may touch. A user pins a message, a tool result, or a
 * text pattern (a CLAUDE.md rule, an AGENTS.md line) in the inspector, or lists patterns in a
 * JP/sven config (`pin = […]`). A pinned message is taken out of every step's window — the same
 * `keep` set a narrowed tail uses (context.ts inWindow) — so no reducer, summary or emergency step
 * edits, summarizes or drops it. A tool call and its result are pinned together (a pair is never
 * split), so pinning either pins the messages of both.
 *
 * Patterns: a plain string matches case-insensitively anywhere in a message's text; `/re/flags`
 * is a regular expression.
 */
import type { Block, Message, Transcript } from '../model/types';
import type { TurnWindow } from './context';

export type Pin =
  | { kind: 'message'; messageId: string; label?: string }
  /** A block of a message (a tool result): its message is pinned, and the messages its pair sits in. */
  | { kind: 'block'; blockId: string; label?: string }
  | { kind: 'pattern'; pattern: string };

export class PinError extends Error {
  readonly code = 'invalid:pin';
  constructor(message: string) {
    super(message);
    this.name = 'PinError';
  }
}

/** A pattern as a matcher: `/re/flags` → RegExp, anything else a case-insensitive literal. */
export function patternMatcher(pattern: string): (text: string) => boolean {
  const re = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (re) {
    let rx: RegExp;
    try {
      rx = new RegExp(re[1], re[2].replace(/[gy]/g, ''));
    } catch (e) {
      throw new PinError(`Pin ${pattern} is not a valid regular expression: ${(e as Error).message}`);
    }
    return (t) => rx.test(t);
  }
  const needle = pattern.toLowerCase();
  if (!needle.trim()) throw new PinError('A pin pattern cannot be empty.');
  return (t) => t.toLowerCase().includes(needle);
}

/** The text of a block, as pins match it. */
export function pinText(b: Block): string {
  switch (b.kind) {
    case 'text':
    case 'reasoning':
    case 'summary':
    case 'opaque':
      return b.text;
    case 'tool_result':
      return b.content;
    case 'tool_call':
      return `${b.name} ${typeof b.input === 'string' ? b.input : JSON.stringify(b.input)}`;
    case 'attachment':
      return b.text ?? b.name ?? '';
  }
}

const messageText = (m: Message) => m.blocks.map(pinText).join('\n');

/** A short name for a pin (the ledger and the inspector list it). */
export function pinLabel(p: Pin): string {
  if (p.kind === 'pattern') return `pattern ${p.pattern}`;
  return p.label ?? (p.kind === 'message' ? `message ${p.messageId}` : `block ${p.blockId}`);
}

export const pinKey = (p: Pin) => (p.kind === 'pattern' ? `p:${p.pattern}` : p.kind === 'message' ? `m:${p.messageId}` : `b:${p.blockId}`);

const cache = new WeakMap<Transcript, Map<string, ReadonlySet<number>>>();

/** Log message indices a pin matches directly (no pairs). */
export function matchedMessages(log: Transcript, pin: Pin): number[] {
  const out: number[] = [];
  if (pin.kind === 'message') {
    const i = log.messages.findIndex((m) => m.id === pin.messageId);
    if (i >= 0) out.push(i);
  } else if (pin.kind === 'block') {
    const i = log.messages.findIndex((m) => m.blocks.some((b) => b.id === pin.blockId));
    if (i >= 0) out.push(i);
  } else {
    const match = patternMatcher(pin.pattern);
    log.messages.forEach((m, i) => {
      if (!m.sidechain && match(messageText(m))) out.push(i);
    });
  }
  return out;
}

/** Every log message index the pins hold, with the messages of their tool pairs (cached per log and pin set). */
export function pinnedMessages(log: Transcript, pins: readonly Pin[]): ReadonlySet<number> {
  if (pins.length === 0) return new Set();
  const key = pins.map(pinKey).sort().join('\u0000');
  let byKey = cache.get(log);
  const hit = byKey?.get(key);
  if (hit) return hit;
  const set = new Set<number>();
  for (const p of pins) for (const i of matchedMessages(log, p)) set.add(i);
  // Pairs: a pinned call's result and a pinned result's call come along.
  if (set.size > 0) {
    const callAt = new Map<string, number[]>();
    log.messages.forEach((m, i) => {
      for (const b of m.blocks) if (b.kind === 'tool_call' || b.kind === 'tool_result') callAt.set(b.callId, [...(callAt.get(b.callId) ?? []), i]);
    });
    for (const i of [...set]) for (const b of log.messages[i].blocks) if (b.kind === 'tool_call' || b.kind === 'tool_result') for (const j of callAt.get(b.callId) ?? []) set.add(j);
  }
  if (!byKey) cache.set(log, (byKey = new Map()));
  byKey.set(key, set);
  return set;
}

/** A step's window with the pinned messages taken out of it. */
export function withPins(window: TurnWindow | null, pinned: ReadonlySet<number>): TurnWindow | null {
  if (!window || pinned.size === 0) return window;
  const keep = new Set(window.keep ?? []);
  for (const i of pinned) keep.add(i);
  return { ...window, keep };
}

/** Whitespace-normalized, lower case: how a pinned text is looked for in what the model is sent. */
const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Pins a compaction lost: a pin whose matched messages sit in the span [from, to) it compacted
 * and whose text is not in what the model is sent afterwards. A pattern is lost when it matched
 * in the span and matches nowhere in `modelText`; a pinned message or block when its text (its
 * first 300 characters, whitespace aside) is not in `modelText`.
 */
export function pinsLostIn(log: Transcript, pins: readonly Pin[], span: [number, number], modelText: string): string[] {
  const lost: string[] = [];
  const inSpan = (i: number) => i >= span[0] && i < span[1];
  let normText: string | undefined;
  for (const p of pins) {
    const hits = matchedMessages(log, p).filter(inSpan);
    if (hits.length === 0) continue;
    if (p.kind === 'pattern') {
      if (!patternMatcher(p.pattern)(modelText)) lost.push(pinLabel(p));
      continue;
    }
    const m = log.messages[hits[0]];
    const text = p.kind === 'block' ? pinText(m.blocks.find((b) => b.id === p.blockId)!) : messageText(m);
    const needle = norm(text).slice(0, 300);
    normText ??= norm(modelText);
    if (needle && !normText.includes(needle)) lost.push(pinLabel(p));
  }
  return lost;
}
