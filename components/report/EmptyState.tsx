import type { ReactNode } from 'react';

/** The designed "nothing here yet" of a side-panel tab: never a blank panel (UI.md). */
export function EmptyState({ title, children, testId }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <div className="rounded-md border border-dashed border-neutral-300 px-3 py-6 text-center text-xs text-neutral-500 dark:border-neutral-700" data-testid={testId}>
      <p className="font-medium text-neutral-700 dark:text-neutral-300">{title}</p>
      {children && <div className="mt-1 leading-snug">{children}</div>}
    </div>
  );
}
