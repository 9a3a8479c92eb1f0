'use client';

import { useMemo, useState } from 'react';
import type { PickerState } from './useImport';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';

/** A container file (tau-bench, eval outputs) holds many conversations: pick one, or import them all. */
export function ConversationPicker({
  picker,
  onChoose,
  onImportAll,
  onClose,
}: {
  picker: PickerState | null;
  onChoose: (index: number) => void;
  onImportAll: () => void;
  onClose: () => void;
}) {
  const [filter, setFilter] = useState('');
  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const all = picker?.conversations ?? [];
    return q ? all.filter((c) => c.title.toLowerCase().includes(q) || String(c.index) === q) : all;
  }, [picker, filter]);

  return (
    <Dialog open={picker !== null} onClose={onClose} title="Choose a conversation" testId="conversation-picker">
      {picker && (
        <>
          <div className="space-y-2 px-5 py-3 text-sm">
            <p>
              <span className="font-mono">{picker.source.name}</span> ({picker.formatLabel}) holds{' '}
              <strong>{picker.conversations.length.toLocaleString('en-US')}</strong> conversations.
            </p>
            <input
              type="search"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              placeholder="Filter by title or number"
              aria-label="Filter conversations"
              className="w-full rounded-md border border-neutral-300 bg-white px-2 py-1.5 dark:border-neutral-700 dark:bg-neutral-950"
            />
          </div>
          <ul className="min-h-0 flex-1 overflow-y-auto border-y border-neutral-200 dark:border-neutral-800" aria-label="Conversations">
            {shown.map((c) => (
              <li key={c.index}>
                <button
                  type="button"
                  data-testid="conversation-option"
                  data-index={c.index}
                  onClick={() => onChoose(c.index)}
                  className="flex w-full items-baseline gap-3 px-5 py-2 text-left text-sm hover:bg-blue-50 focus-visible:bg-blue-50 dark:hover:bg-blue-950/40 dark:focus-visible:bg-blue-950/40"
                >
                  <span className="w-10 shrink-0 text-right tabular-nums text-neutral-500">#{c.index}</span>
                  <span className="min-w-0 flex-1 truncate">{c.title}</span>
                  <span className="shrink-0 tabular-nums text-neutral-500">{c.messages.toLocaleString('en-US')} messages</span>
                </button>
              </li>
            ))}
            {shown.length === 0 && <li className="px-5 py-6 text-center text-sm text-neutral-500">No conversation matches “{filter}”.</li>}
          </ul>
          <div className="flex justify-end gap-2 px-5 py-3">
            <Button onClick={onClose}>Cancel</Button>
            <Button onClick={onImportAll} data-testid="import-all">
              Import all {picker.conversations.length.toLocaleString('en-US')}
            </Button>
          </div>
        </>
      )}
    </Dialog>
  );
}
