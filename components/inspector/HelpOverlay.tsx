'use client';

import { Dialog } from '../ui/Dialog';

export const SHORTCUTS: ReadonlyArray<[string, string]> = [
  ['← / →', 'Move the cursor turn (timeline focused)'],
  ['Shift + ← / →', 'Extend the selection'],
  ['+ / −, wheel', 'Zoom the timeline around the pointer · 0 shows all'],
  ['Shift + drag', 'Pan the timeline'],
  ['Drag', 'Select a range of turns'],
  ['Double-click', 'Select a whole compaction span'],
  ['/', 'Search the transcript'],
  ['a', 'Auto-compact the selection (applies the auto plan once its preview is in)'],
  ['p', 'Go to the Plan (the side panel), on its first field'],
  ['Enter, Ctrl + Enter', 'Apply the plan as a step (on the timeline Enter shows the cursor turn: use Ctrl + Enter)'],
  ['z', 'Undo the last step'],
  ['e', 'Export'],
  ['?', 'This sheet'],
  ['Esc', 'Close a dialog, clear the search'],
];

export function HelpOverlay({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" testId="help-overlay">
      <table className="m-5 text-sm">
        <tbody>
          {SHORTCUTS.map(([k, what]) => (
            <tr key={k}>
              <td className="py-1 pr-6">
                <kbd className="rounded border border-neutral-300 bg-neutral-50 px-1.5 py-0.5 font-mono text-xs dark:border-neutral-700 dark:bg-neutral-800">{k}</kbd>
              </td>
              <td className="py-1 text-neutral-700 dark:text-neutral-300">{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
