'use client';

import { useEffect, useRef, type ReactNode } from 'react';

/** A modal built on <dialog>: focus trapping, Escape and the backdrop come from the platform. */
export function Dialog({ open, onClose, title, children, testId }: { open: boolean; onClose: () => void; title: string; children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      // In a task of its own, after the click's: showModal makes the rest of the page inert, a style
      // recalc of the whole page (22 ms of CPU on the inspector at 3,000 turns), and with React's
      // render of the dialog in the same task the Export click was a 37–43 ms task (issue 31: no
      // task over 50 ms; e2e/app-tasks.spec.ts). The dialog stays closed (not drawn) until then.
      const t = setTimeout(() => {
        if (!d.open && d.isConnected) d.showModal();
      }, 0);
      return () => clearTimeout(t);
    }
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      data-testid={testId}
      aria-label={title}
      onClose={onClose}
      onCancel={onClose}
      className="m-auto w-[min(42rem,92vw)] rounded-xl border border-neutral-200 bg-white p-0 text-neutral-900 shadow-2xl backdrop:bg-black/40 dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-100"
    >
      {open && (
        <div className="flex max-h-[80vh] flex-col">
          <div className="flex items-center justify-between border-b border-neutral-200 px-5 py-3 dark:border-neutral-800">
            <h2 className="font-semibold">{title}</h2>
            <button type="button" onClick={onClose} aria-label="Close" className="rounded px-2 text-neutral-500 hover:bg-neutral-100 dark:hover:bg-neutral-800">
              ✕
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}
