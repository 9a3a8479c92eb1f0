'use client';

import { lazy, type ComponentType } from 'react';

/**
 * A component whose code is a chunk of its own, asked for as soon as this is called in the browser
 * (issue 31: a page's code in one chunk is one module whose first call V8 compiles on the main thread,
 * so the inspector's 295 KB made a task of 55–64 ms CPU; chunks compile in a task each).
 *
 * It is one React.lazy component, so its place in the tree never changes (no remount when the code
 * arrives). Rendered before its chunk is in, it suspends (wrap it in Suspense). Rendered first after
 * the chunk is in, it does not: React.lazy reads the module through a thenable that answers at once
 * (a resolved Promise would answer a microtask later, and the first render would suspend anyway).
 */
export function preloaded<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let started: Promise<ComponentType<P>> | null = null;
  const start = () => (started ??= load().then((c) => (loaded = c)));
  // A failed load is left to the lazy render, which throws it to the nearest error boundary.
  if (typeof window !== 'undefined') start().catch(() => {});
  return lazy(() => {
    const now = loaded;
    if (now) return { then: (resolve: (m: { default: ComponentType<P> }) => void) => resolve({ default: now }) } as unknown as Promise<{ default: ComponentType<P> }>;
    return start().then((c) => ({ default: c }));
  });
}
