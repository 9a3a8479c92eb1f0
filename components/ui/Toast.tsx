'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A transient notice at the bottom (undo after delete). Calls onExpire once its time is up. Its
 * countdown pauses while it is held (the pointer over it or the focus inside it: the user is about
 * to act on it) and goes on with the time it had left once released; `onHold` reports the changes.
 */
export function Toast({
  children,
  onExpire,
  onHold,
  ms = 8000,
  testId,
}: {
  children: ReactNode;
  onExpire: () => void;
  onHold?: (held: boolean) => void;
  ms?: number;
  testId?: string;
}) {
  const [pointer, setPointer] = useState(false);
  const [focus, setFocus] = useState(false);
  const held = pointer || focus;
  const left = useRef(ms);

  useEffect(() => {
    if (held) return;
    const start = performance.now();
    const t = setTimeout(onExpire, left.current);
    return () => {
      clearTimeout(t);
      left.current = Math.max(0, left.current - (performance.now() - start));
    };
  }, [held, onExpire]);

  useEffect(() => {
    if (!held || !onHold) return;
    onHold(true);
    return () => onHold(false);
  }, [held, onHold]);

  return (
    <div
      role="status"
      data-testid={testId}
      data-held={held || undefined}
      onPointerEnter={() => setPointer(true)}
      onPointerLeave={() => setPointer(false)}
      onFocus={() => setFocus(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocus(false);
      }}
      className="fixed bottom-4 left-1/2 z-50 flex -translate-x-1/2 items-center gap-3 rounded-lg bg-neutral-900 px-4 py-2.5 text-sm text-white shadow-lg dark:bg-neutral-100 dark:text-neutral-900"
    >
      {children}
    </div>
  );
}
