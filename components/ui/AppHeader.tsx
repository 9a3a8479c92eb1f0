import Link from 'next/link';
import type { ReactNode } from 'react';
import { ThemeToggle } from './ThemeToggle';

/** The library's header. The inspector has its own denser top bar (components/inspector/TopBar). */
export function AppHeader({ children }: { children?: ReactNode }) {
  return (
    <header className="flex h-12 items-center gap-4 border-b border-neutral-200 px-4 dark:border-neutral-800">
      <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight">
        <Logo />
        Contextscope
      </Link>
      <span className="hidden text-xs text-neutral-500 sm:inline">local-first · nothing leaves your browser</span>
      <div className="flex-1">{children}</div>
      <nav className="flex items-center gap-1 text-sm">
        <Link href="/settings" className="rounded px-2 py-1 text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800">
          Settings
        </Link>
        <ThemeToggle />
      </nav>
    </header>
  );
}

export function Logo() {
  // Stacked bars under a window line: the timeline in miniature.
  return (
    <svg width="20" height="20" viewBox="0 0 20 20" aria-hidden="true">
      <rect x="2" y="12" width="3" height="6" fill="var(--color-kind-user)" />
      <rect x="6" y="9" width="3" height="9" fill="var(--color-kind-assistant)" />
      <rect x="10" y="6" width="3" height="12" fill="var(--color-kind-tool-result)" />
      <rect x="14" y="10" width="3" height="8" fill="var(--color-kind-summary)" />
      <line x1="1" y1="3.5" x2="19" y2="3.5" stroke="#dc2626" strokeWidth="1.5" />
    </svg>
  );
}
