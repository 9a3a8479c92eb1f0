'use client';

/**
 * One lost item of a category (a user message, path, command, error line or figure), as the
 * Compactions tab and the Lost tab list it: its turn, its text, and a click that shows that turn.
 */
export function LostItemButton({ testId, turn, text, prose, onJump }: { testId: string; turn?: number; text: string; prose: boolean; onJump: (turn: number) => void }) {
  return (
    <button
      type="button"
      data-testid={testId}
      data-turn={turn}
      onClick={() => turn !== undefined && onJump(turn)}
      className="flex w-full items-baseline gap-2 rounded px-1 py-0.5 text-left hover:bg-neutral-100 dark:hover:bg-neutral-800"
      title={turn !== undefined ? `Show turn ${turn + 1}` : undefined}
    >
      <span className="shrink-0 tabular-nums text-neutral-500">{turn !== undefined ? `t${turn + 1}` : ''}</span>
      <span className={`min-w-0 ${prose ? 'line-clamp-2' : 'truncate font-mono'}`}>{text}</span>
    </button>
  );
}
