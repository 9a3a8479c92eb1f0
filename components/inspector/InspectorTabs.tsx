'use client';

import { useRef, type ReactNode } from 'react';
import type { InspectorData } from '@/lib/engine/api';
import { PlanTab } from '../plan/PlanTab';
import { DiffTab } from '../report/DiffTab';
import { LostTab, lostShownCount } from '../report/LostTab';
import { ReportTab } from '../report/ReportTab';
import { ToolsTab } from '../report/ToolsTab';
import { VersionsTab } from '../versions/VersionsTab';
import { CompactionsTab } from '../ledger/CompactionsTab';
import { SidePanel } from './SidePanel';
import type { Workbench } from './useWorkbench';

export const TABS = ['Plan', 'Report', 'Lost', 'Compactions', 'Diff', 'Tools', 'Versions', 'Info'] as const;
export type TabName = (typeof TABS)[number];

/** The side panel: one tab list (arrow keys move between tabs), one panel. */
export function InspectorTabs({
  data,
  wb,
  tab,
  onTab,
  selection,
  selectedTokens,
  onJump,
  ledgerFocus = null,
}: {
  data: InspectorData;
  wb: Workbench;
  tab: TabName;
  onTab: (t: TabName) => void;
  selection: [number, number] | null;
  selectedTokens: number;
  onJump: (turn: number) => void;
  /** The ledger event a timeline marker opened (issue 26). */
  ledgerFocus?: string | null;
}) {
  const list = useRef<HTMLDivElement>(null);
  const preview = wb.compaction.preview;
  const lostCount = preview ? lostShownCount(preview) : 0;
  const badge: Partial<Record<TabName, ReactNode>> = {
    Lost: lostCount > 0 ? lostCount : undefined,
    Diff: preview && preview.diffTotal > 0 ? preview.diffTotal : undefined,
    Versions: wb.versions.length > 1 ? wb.versions.length : undefined,
  };
  const id = data.meta.id;
  return (
    <aside className="flex h-full min-h-0 flex-col border-l border-neutral-200 dark:border-neutral-800" aria-label="Compaction" data-testid="inspector-tabs">
      <div
        ref={list}
        role="tablist"
        aria-label="Side panel"
        className="flex shrink-0 gap-0.5 overflow-x-auto border-b border-neutral-200 px-2 pt-1.5 dark:border-neutral-800"
        onKeyDown={(e) => {
          if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
          e.preventDefault();
          const i = TABS.indexOf(tab);
          const next = TABS[(i + (e.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
          onTab(next);
          list.current?.querySelector<HTMLButtonElement>(`[data-tab="${next}"]`)?.focus();
        }}
      >
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t}`}
            data-tab={t}
            aria-selected={tab === t}
            aria-controls={`panel-${t}`}
            tabIndex={tab === t ? 0 : -1}
            onClick={() => onTab(t)}
            className={`-mb-px flex items-center gap-1 whitespace-nowrap rounded-t border-b-2 px-1.5 py-1.5 text-xs font-medium ${
              tab === t ? 'border-blue-600 text-neutral-900 dark:border-blue-400 dark:text-neutral-100' : 'border-transparent text-neutral-500 hover:text-neutral-800 dark:hover:text-neutral-200'
            }`}
          >
            {t}
            {badge[t] !== undefined && <span className="rounded-full bg-neutral-200 px-1.5 text-[10px] tabular-nums text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300" aria-hidden="true">{badge[t]}</span>}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="min-h-0 flex-1 overflow-y-auto p-3" data-testid={`panel-${tab.toLowerCase()}`}>
        {tab === 'Plan' && <PlanTab id={id} wb={wb} selection={selection} selectedTokens={selectedTokens} />}
        {tab === 'Report' && <ReportTab preview={preview} />}
        {tab === 'Lost' && <LostTab preview={preview} onJump={onJump} />}
        {tab === 'Compactions' && <CompactionsTab id={id} versionId={wb.versionId} stamp={`${wb.version.updatedAt}|${wb.version.steps.length}`} focus={ledgerFocus} onJump={onJump} />}
        {tab === 'Diff' && <DiffTab preview={preview} onJump={onJump} />}
        {tab === 'Tools' && <ToolsTab id={id} schemas={data.tools} toolCalls={data.meta.toolCalls} />}
        {tab === 'Versions' && <VersionsTab id={id} wb={wb} />}
        {tab === 'Info' && <SidePanel data={data} />}
      </div>
    </aside>
  );
}
