'use client';

import { lazy, type ComponentType } from 'react';

/**
 * A component whose code is a chunk of its own, asked for as soon as this is called in the browser
 * (issue 31: a page's code in one chunk is one module whose first call V8 compiles on the main thread,
 * so the inspector's 295 KB made a task of 55–64 ms CPU; chunks compile in a task each). Until the
 * chunk is in, the component renders through React.lazy (it suspends: wrap it in Suspense); once in,
 * it renders the component itself, so a mount after the chunk arrived never suspends or flashes.
 */
export function preloaded<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let started: Promise<ComponentType<P>> | null = null;
  const start = () => (started ??= load().then((c) => (loaded = c)));
  // A failed load is left to the lazy render below, which throws it to the nearest error boundary.
  if (typeof window !== 'undefined') start().catch(() => {});
  const Lazy = lazy(() => start().then((c) => ({ default: c })));
  function Preloaded(props: P) {
    const C = loaded ?? Lazy;
    return <C {...props} />;
  }
  return Preloaded;
}
