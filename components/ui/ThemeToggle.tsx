'use client';

import { useEffect, useState } from 'react';

type Theme = 'light' | 'dark' | 'system';
const KEY = 'contextscope-theme';
/**
 * The next theme: from the system's, first the opposite one (so the first click always changes the
 * page), then the system's own colours chosen explicitly, then back to following the system.
 */
function nextTheme(theme: Theme, systemDark: boolean): Theme {
  const opposite: Theme = systemDark ? 'light' : 'dark';
  if (theme === 'system') return opposite;
  if (theme === opposite) return systemDark ? 'dark' : 'light';
  return 'system';
}
const LABEL: Record<Theme, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };
const ICON: Record<Theme, string> = { system: '◐', light: '☀', dark: '☾' };

function apply(theme: Theme): void {
  const dark = theme === 'dark' || (theme === 'system' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.classList.toggle('dark', dark);
  window.dispatchEvent(new Event('contextscope-theme'));
}

/** Cycles system → the opposite of the system's colours → the system's colours → system. The choice lives in localStorage so the pre-paint script can read it. */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>('system');
  useEffect(() => {
    const stored = localStorage.getItem(KEY);
    if (stored === 'light' || stored === 'dark' || stored === 'system') setTheme(stored);
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => {
      if ((localStorage.getItem(KEY) ?? 'system') === 'system') apply('system');
    };
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, []);
  return (
    <button
      type="button"
      data-testid="theme-toggle"
      aria-label={`${LABEL[theme]} (click to change)`}
      title={LABEL[theme]}
      className="rounded px-2 py-1 text-base leading-none text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800"
      onClick={() => {
        const next = nextTheme(theme, matchMedia('(prefers-color-scheme: dark)').matches);
        localStorage.setItem(KEY, next);
        setTheme(next);
        apply(next);
      }}
    >
      {ICON[theme]}
    </button>
  );
}

/** True when the page is in dark mode; re-renders on theme changes (the canvas needs its colours). */
export function useIsDark(): boolean {
  const [dark, setDark] = useState(false);
  useEffect(() => {
    const read = () => setDark(document.documentElement.classList.contains('dark'));
    read();
    const observer = new MutationObserver(read);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
    return () => observer.disconnect();
  }, []);
  return dark;
}
