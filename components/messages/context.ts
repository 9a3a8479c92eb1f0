'use client';

/**
 * What the list shows besides the messages, passed by context so the memoized rows need no new
 * props: the fate of each changed block in the previewed version, and the search's highlight.
 */
import { createContext, useContext } from 'react';
import type { FateKind } from '@/lib/model/projection';
import type { Pin } from '@/lib/compaction/pins';

export const FateContext = createContext<ReadonlyMap<string, FateKind> | null>(null);

export interface SearchHighlight {
  /** Text to mark in plain-text blocks ('' = none). */
  text: string;
  /** Row index of the current hit (outlined). */
  activeRow: number | null;
}

export const SearchContext = createContext<SearchHighlight>({ text: '', activeRow: null });

export function useBlockFate(blockId: string): FateKind | undefined {
  return useContext(FateContext)?.get(blockId);
}

/** The transcript's invisible overhead (tokens per call the file leaves out): turn headers show context with it as its own part. */
export const OverheadContext = createContext(0);

/**
 * The transcript's item pins (issue 26 §4) for the list's pin toggles: the keys pinned directly
 * (pinKey: `m:<messageId>`, `b:<blockId>`), and how to pin or unpin one. Null: no toggles shown.
 */
export interface PinControl {
  pinned: ReadonlySet<string>;
  toggle: (pin: Extract<Pin, { kind: 'message' | 'block' }>) => void;
  busy: boolean;
}

export const PinsContext = createContext<PinControl | null>(null);
