'use client';

import { useEffect, type ReactNode } from 'react';

/** A transient notice at the bottom (undo after delete). Calls onExpire once its time is up. */
export function Toast({ children, onExpire, ms = 8000, testId }: { children: ReactNode; onExpire: () => void; ms?: number; testId?: string }) {
  useEffect(() => {
    const t = setTimeout(onExpire, ms);
    return () => clearTimeout(t);
  }, [onExpire, ms]);
  return (
    <div
      role="status"
      data-testid={testId}
      className="fixed bottom-4 left-1/2 z-50 flex -translate-x-1/2 items-center gap-3 rounded-lg bg-neutral-900 px-4 py-2.5 text-sm text-white shadow-lg dark:bg-neutral-100 dark:text-neutral-900"
    >
      {children}
    </div>
  );
}
