'use client';

import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { startTransition, Suspense, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { getBridge } from '@/lib/engine/client';
import { userMessage } from '@/lib/errors';
import { SAVED_FATES } from '@/lib/engine/preview-kinds';
import { FateContext, PinsContext, SearchContext } from '../messages/context';
import { usePins } from '../ledger/usePins';
import type { MessageListHandle } from '../messages/MessageList';
import { preloaded } from '../ui/preloaded';
import { OverheadContext } from '../messages/context';
import { CONTEXT_DEFINITION } from '../ui/context-label';
import { formatDelta } from '../plan/numbers';
import { parseQuery } from '@/lib/engine/search';
import { SearchBar } from '../search/SearchBar';
import { FATE_STYLE, fateSwatchStyle } from '../timeline/patterns';
import { TimelineLegend } from '../timeline/TimelineLegend';
import { formatTokens } from '../ui/format';
import type { TabName } from './InspectorTabs';
import { autoAxis, barOfMessage, formatSelection, lowerBound, parseCallSelection, parseSelection, prefixOfAdded, tokensInRange } from './selection';
import { rowOfMessage } from '@/lib/engine/rows';
import { rangeLabel } from '../plan/range-label';
import type { TimelineTurn } from '@/lib/engine/timeline';
import type { ReplayView } from '@/lib/engine/replay';
import { policyColor } from '../replay/colors';
import { REPLAY_POLICY_LIST } from '../replay/policy-list';
import { TopBar } from './TopBar';
import { InspectorLedgerStrip } from '../ledger/LedgerStrip';
import { LiveStrip } from '../sessions/LiveStrip';
import { useLiveSession } from '../sessions/useLiveSession';
import { ORIGINAL_VERSION } from '@/lib/engine/versions';
import { useDebounced, useUrlParam, useWorkbench, type Workbench } from './useWorkbench';
import { listenLibrary } from '@/lib/engine/channel';

/*
 * The timeline's chart, the message list, the side panel (its tabs), the export dialog and the help
 * overlay are chunks of their own, asked for as this module loads (components/ui/preloaded.tsx,
 * issue 31). In one chunk the inspector's code was one 295 KB module whose first call V8 compiled on
 * the page's main thread: a task of 55–64 ms CPU (V8.CompileCode 47 ms) when Next prefetched the
 * route after an import. Each chunk now compiles in a task of its own.
 */
const TimelineChart = preloaded(() => import('../timeline/TimelineChart').then((m) => m.TimelineChart));
const MessageList = preloaded(() => import('../messages/MessageList').then((m) => m.MessageList));
const InspectorTabs = preloaded(() => import('./InspectorTabs').then((m) => m.InspectorTabs));
const ExportDialog = preloaded(() => import('../export/ExportDialog').then((m) => m.ExportDialog));
const HelpOverlay = preloaded(() => import('./HelpOverlay').then((m) => m.HelpOverlay));

const SEARCH_DEBOUNCE_MS = 150;
/** Hits counted at most (the count then reads 10000+). */
const SEARCH_LIMIT = 10_000;
const NO_HITS: number[] = [];

/** Keys typed into a field, a button or a select are theirs, not shortcuts. */
function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  if (el.tagName === 'INPUT') return !['checkbox', 'radio', 'button', 'submit', 'range', 'color', 'file'].includes((el as HTMLInputElement).type);
  return el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable;
}

/**
 * /inspect?id=…&v=…&sel=a-b&m=… — the timeline (budget lines, preview fates, selection), the
 * message list, and the side panel (Plan · Report · Lost · Diff · Tools · Versions · Info). The
 * URL holds the transcript, the version, the selection and the model, so a reload lands in the
 * same place.
 */
export function InspectorPage() {
  const params = useSearchParams();
  const setParams = useUrlParam();
  const id = params.get('id') ?? '';
  const list = useRef<MessageListHandle>(null);
  const searchInput = useRef<HTMLInputElement>(null);
  const [cursorTurn, setCursorTurn] = useState<number | null>(null);
  const [tab, setTab] = useState<TabName>('Plan');
  const [ledgerFocus, setLedgerFocus] = useState<string | null>(null);
  const [exportOpen, setExportOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const pinControl = usePins(id).control;
  const [query, setQuery] = useState('');
  const [hitIndex, setHitIndex] = useState(0);

  const data = useQuery({
    queryKey: ['inspector', id],
    queryFn: ({ signal }) => getBridge().getInspectorData(signal, id),
    enabled: id !== '',
    retry: false,
    // A live session moves the page to its next snapshot (a new id sharing this one's prefix):
    // the page keeps drawing this one until the next is read, rather than blanking.
    placeholderData: keepPreviousData,
  });
  // The inspector's first render (everything but its chart and side panel) was one task of 50–80 ms
  // CPU at 10,000 turns (issue 31): the query's answer lands through useSyncExternalStore, whose
  // renders are synchronous. Read deferred, the page renders it in a transition, which React splits
  // into tasks of a few ms (the render yields between components; the commit is one task).
  const inspectorData = useDeferredValue(data.data);
  const turns = useMemo(() => inspectorData?.timeline.turns ?? [], [inspectorData]);
  // The list's layout (typed arrays); its rows stay in the worker and come a window at a time.
  // Asked for once the timeline is here: built from every message, they would hold its slices back.
  const rowIndex = useQuery({
    queryKey: ['row-index', id],
    queryFn: ({ signal }) => getBridge().getRowIndex(signal, id),
    enabled: data.isSuccess && !data.isPlaceholderData,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
  const turnCount = inspectorData?.meta.turns ?? turns.length;
  // The x-axis: one bar per turn, or per model call (chosen by itself for agent runs; `axis=` overrides).
  const callCount = inspectorData?.timeline.callCount ?? 0;
  const axisParam = params.get('axis');
  const axis: 'turns' | 'calls' = axisParam === 'calls' || axisParam === 'turns' ? axisParam : autoAxis(turnCount, callCount);
  const callTimeline = useQuery({
    queryKey: ['call-timeline', id],
    queryFn: ({ signal }) => getBridge().getCallTimeline(signal, id),
    enabled: data.isSuccess && axis === 'calls',
    staleTime: Infinity,
  });
  const barSeries = axis === 'calls' ? callTimeline.data : inspectorData?.timeline;
  const bars = useMemo(() => barSeries?.turns ?? [], [barSeries]);
  const selection = axis === 'calls' ? parseCallSelection(params.get('sel'), callCount) : parseSelection(params.get('sel'), turnCount);
  const selKey = selection ? `${selection[0]}-${selection[1]}` : '';
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stableSelection = useMemo(() => selection, [selKey]);
  const wb = useWorkbench(id, inspectorData, stableSelection, axis);

  // A session opened from the local API follows its file; a selection, a preview or a compacted
  // version holds the page on this snapshot (their steps are of this log).
  const live = useLiveSession(id, selection !== null || wb.planActive || wb.versionId !== ORIGINAL_VERSION);
  const followLive = useCallback(() => {
    wb.setPlanActive(false);
    setParams({ sel: null, v: null });
  }, [wb, setParams]);

  const addedPrefix = useMemo(() => prefixOfAdded(bars), [bars]);
  const selectedTokens = selection ? tokensInRange(bars, addedPrefix, selection) : 0;

  // The list scrolls in a task of its own, after the one that hands a selection or a cursor to
  // the page: each is a render of its own (the page's, then the list's new rows), and together
  // they made one task of 35–70 ms at 100k turns on a slow CPU. Calls in one task coalesce: the
  // last turn wins.
  const scrollTarget = useRef<{ turn: number; timer: ReturnType<typeof setTimeout> | null }>({ turn: 0, timer: null });
  useEffect(() => {
    const target = scrollTarget.current;
    return () => {
      if (target.timer) clearTimeout(target.timer);
    };
  }, []);
  const showTurn = useCallback((turn: number) => {
    setCursorTurn(turn);
    const target = scrollTarget.current;
    target.turn = turn;
    target.timer ??= setTimeout(() => {
      target.timer = null;
      list.current?.scrollToTurn(target.turn);
    }, 0);
  }, []);

  /** On the call axis the cursor is a call: the list shows the call's first message, the turn holding it is the active one. */
  const [cursorCall, setCursorCall] = useState<number | null>(null);
  const showCall = useCallback(
    (call: number) => {
      setCursorCall(call);
      const bar = bars[call];
      if (!bar) return;
      setCursorTurn(bar.ofTurn ?? null);
      const index = rowIndex.data;
      const target = scrollTarget.current;
      if (target.timer) clearTimeout(target.timer);
      target.timer = setTimeout(() => {
        target.timer = null;
        const row = index ? rowOfMessage(index, bar.firstMessage) : -1;
        if (row >= 0) list.current?.scrollToRow(row);
      }, 0);
    },
    [bars, rowIndex.data],
  );
  const showBar = axis === 'calls' ? showCall : showTurn;

  const { previewSelection } = wb;
  /** The selection lives in the URL (`sel=a-b` turns or `sel=cA-B` calls, 1-based) so it survives reloads and can be shared. */
  const setSelection = useCallback(
    (range: [number, number] | null) => {
      const sel = range ? formatSelection(range, axis) : null;
      // The preview is asked for first, for the range as the URL will give it back (issue 31).
      const back = sel === null ? null : axis === 'calls' ? parseCallSelection(sel, callCount) : parseSelection(sel, turnCount);
      if (back) previewSelection(back);
      setParams({ sel });
      if (range) showBar(range[0]);
    },
    [setParams, showBar, axis, previewSelection, callCount, turnCount],
  );
  /** Switching the axis drops the selection: a range of turns is not a range of calls. */
  const setAxis = useCallback((next: 'turns' | 'calls') => setParams({ axis: next, sel: null }), [setParams]);

  // The timeline draws the chosen model's window (the base layer reads timeline.contextWindow).
  const timeline = useMemo(() => (barSeries ? { ...barSeries, contextWindow: wb.contextWindow } : undefined), [barSeries, wb.contextWindow]);

  // Search runs in the worker over the list's rows (so it finds what the virtualized list does
  // not render), debounced; hits are row indexes.
  const deferredQuery = useDebounced(query.trim(), SEARCH_DEBOUNCE_MS);
  const parsed = useMemo(() => parseQuery(deferredQuery), [deferredQuery]);
  const search = useQuery({
    queryKey: ['search', id, deferredQuery],
    // No signal: aborting would terminate the query lane's worker and the list's row loads with it.
    queryFn: () => getBridge().searchRows(undefined, id, deferredQuery, SEARCH_LIMIT),
    enabled: rowIndex.isSuccess && deferredQuery !== '',
    staleTime: Infinity,
  });
  const hits = useMemo(() => (deferredQuery !== '' && search.data ? search.data : NO_HITS), [deferredQuery, search.data]);
  useEffect(() => {
    setHitIndex(0);
    if (hits.length > 0) list.current?.scrollToRow(hits[0]);
  }, [hits]);
  const stepHit = useCallback(
    (dir: 1 | -1) => {
      if (hits.length === 0) return;
      const next = (hitIndex + dir + hits.length) % hits.length;
      setHitIndex(next);
      list.current?.scrollToRow(hits[next]);
    },
    [hits, hitIndex],
  );
  const highlight = useMemo(() => ({ text: parsed?.highlight ?? '', activeRow: hits[hitIndex] ?? null }), [parsed, hits, hitIndex]);
  // The hits' turns, marked on the timeline.
  const hitTurns = useMemo(() => {
    const index = rowIndex.data;
    if (!index || hits.length === 0) return NO_HITS;
    const turnsHit: number[] = [];
    for (const row of hits) {
      // On the call axis a hit marks the call holding its message (a turn's header row marks none).
      const bar = axis === 'calls' ? (index.message[row] >= 0 ? barOfMessage(bars, index.message[row]) : -1) : index.turn[row];
      if (bar >= 0 && turnsHit[turnsHit.length - 1] !== bar) turnsHit.push(bar);
    }
    return turnsHit;
  }, [rowIndex.data, hits, axis, bars]);
  const activeRow = hits.length > 0 ? hits[hitIndex] ?? hits[0] : -1;
  const activeHitTurn = rowIndex.data && activeRow >= 0 ? (axis === 'calls' ? barOfMessage(bars, rowIndex.data.message[activeRow]) : rowIndex.data.turn[activeRow]) : null;

  // Replayed policies over the timeline (`pol=a,b` in the URL): the replay of the Replay page and
  // of `simulate` (the transcript's model, the provider's cache lifetime), drawn per call.
  const shownPolicies = useMemo(() => (params.get('pol') ?? '').split(',').filter(Boolean), [params]);
  // A model the user picked (m= in the URL) prices the overlay as it does the Replay page; else the
  // session's own model routing (Gemini CLI's Flash/Pro), as `simulate` has it: one bill for both.
  const chosenModel = params.get('m') ?? '';
  // Only the policies drawn are replayed (issue 31): the worker keeps each policy's series, so
  // ticking one more replays that one alone, and the curves already drawn stay while it does. A
  // replay a new tick supersedes is not cancelled (that would stop the worker and lose what it
  // replayed): it finishes, and the next request finds its policies done.
  const drawnKey = useMemo(() => policyKey(shownPolicies), [shownPolicies]);
  const replay = useQuery({
    ...replayQuery(id, chosenModel, drawnKey),
    // The same session and model only (another model's numbers are not shown while its replay runs).
    placeholderData: (prev, prevQuery) => (prevQuery?.queryKey[1] === id && prevQuery?.queryKey[2] === chosenModel ? prev : undefined),
    enabled: data.isSuccess && shownPolicies.length > 0,
    retry: false,
    staleTime: Infinity,
  });
  const policyCurves = useMemo(() => {
    const view = replay.data;
    if (!view || shownPolicies.length === 0 || bars.length === 0) return undefined;
    // Each replayed call on its bar: the call holding its message (call axis) or its turn.
    const barOfCall = Int32Array.from(view.callMessages, (mi, i) => (axis === 'calls' ? barOfMessage(bars, mi) : barOfTurn(bars, view.callTurns[i])));
    return view.series
      .filter((x) => shownPolicies.includes(x.id))
      .map((x) => {
        const values = new Float64Array(bars.length).fill(NaN);
        const fired = new Uint8Array(bars.length);
        for (let i = 0; i < x.prompts.length; i++) {
          const b = barOfCall[i];
          if (b < 0) continue;
          values[b] = x.prompts[i];
          if (x.fired[i]) fired[b] = 1;
        }
        return { id: x.id, color: policyColor(x.id), values, fired };
      });
  }, [replay.data, shownPolicies, bars, axis]);
  // A tick asks the worker in its own event, then updates the URL: through the URL, the request
  // waited for the router's transition and the inspector's re-render (1.3–1.7 s at 2,000 turns under
  // load, issue 31). The query the URL then names is this one, already running (or done).
  const queryClient = useQueryClient();
  const setPolicies = useCallback(
    (ids: string[]) => {
      if (ids.length) void queryClient.prefetchQuery({ ...replayQuery(id, chosenModel, policyKey(ids)), retry: false, staleTime: Infinity });
      setParams({ pol: ids.length ? ids.join(',') : null });
    },
    [queryClient, id, chosenModel, setParams],
  );
  // Compared versions' curves are per turn: not drawn on the call axis.
  const chartCompaction = useMemo(() => {
    const base = axis === 'calls' && wb.compaction.compare ? { ...wb.compaction, compare: null } : wb.compaction;
    return policyCurves ? { ...base, policies: policyCurves } : base;
  }, [axis, wb.compaction, policyCurves]);

  // Deleted in another tab (lib/engine/channel.ts): say so here rather than go on showing it as if stored.
  const [deletedElsewhere, setDeletedElsewhere] = useState(false);
  useEffect(
    () =>
      listenLibrary((m) => {
        if (m.kind === 'deleted' && m.transcriptId === id) setDeletedElsewhere(true);
        else if (m.kind === 'restored' && m.transcriptId === id) setDeletedElsewhere(false);
      }),
    [id],
  );
  const { setPlan, apply, undo } = wb;
  // `a` acts: once the auto plan's preview for this selection is in, apply it (nothing when it changes nothing).
  const [autoRequested, setAutoRequested] = useState(false);
  useEffect(() => {
    if (!autoRequested || wb.plan.mode !== 'auto' || !wb.planActive || wb.previewPending || !wb.preview.data || wb.busy !== null) return;
    setAutoRequested(false);
    if (!wb.draftIsNoop) void apply();
  }, [autoRequested, wb.plan.mode, wb.planActive, wb.previewPending, wb.preview.data, wb.busy, wb.draftIsNoop, apply]);
  // The side panel in one key (`p`) or from the skip link: the Plan tab, focused on its first field.
  const focusPlan = useCallback(() => {
    setTab('Plan');
    requestAnimationFrame(() => (document.querySelector<HTMLElement>('[data-testid="target-budget"]') ?? document.getElementById('tab-Plan'))?.focus());
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (document.querySelector('dialog[open]')) return;
      // Ctrl/⌘+Enter applies from anywhere, the timeline too (where Enter shows the cursor's turn).
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key === 'Enter') {
        e.preventDefault();
        void apply();
        return;
      }
      if (e.metaKey || e.ctrlKey || e.altKey || isTyping(e.target)) return;
      const onControl = (e.target as HTMLElement | null)?.closest?.('button, a, [data-testid="timeline"]');
      if (e.key === '/') {
        e.preventDefault();
        searchInput.current?.focus();
      } else if (e.key === '?') {
        e.preventDefault();
        setHelpOpen(true);
      } else if (e.key === 'e') {
        e.preventDefault();
        setExportOpen(true);
      } else if (e.key === 'a') {
        // Auto-compact the selection (UI.md): auto mode, and the step is applied once its preview is in.
        e.preventDefault();
        setTab('Plan');
        setPlan((p) => ({ ...p, mode: 'auto' }));
        setAutoRequested(true);
      } else if (e.key === 'p') {
        e.preventDefault();
        focusPlan();
      } else if (e.key === 'z') {
        e.preventDefault();
        void undo();
      } else if (e.key === 'Enter' && !onControl) {
        e.preventDefault();
        void apply();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setPlan, apply, undo, focusPlan]);

  if (!id || data.isError) {
    return (
      <div className="flex h-screen flex-col">
        <TopBar onExport={() => {}} />
        <div className="m-auto max-w-md text-center" role="alert" data-testid="inspector-missing">
          <p className="font-semibold">{id ? 'This transcript is not in this browser.' : 'No transcript selected.'}</p>
          {data.isError && <p className="mt-1 text-sm text-neutral-500">{userMessage(data.error)}</p>}
          <Link href="/" className="mt-3 inline-block text-sm font-medium text-blue-700 underline dark:text-blue-400">
            Back to the library
          </Link>
        </div>
      </div>
    );
  }

  const preview = wb.compaction.preview;
  return (
    <div className="flex h-screen flex-col" data-testid="inspector" data-version={wb.versionId} data-messages={inspectorData?.meta.messages}>
      <button type="button" onClick={focusPlan} className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-1.5 focus:text-sm focus:shadow dark:focus:bg-neutral-900" data-testid="skip-to-plan">
        Skip to the Plan (p)
      </button>
      <TopBar
        meta={inspectorData?.meta}
        model={wb.model}
        onModel={wb.setModelId}
        versions={wb.versions}
        versionId={wb.versionId}
        onVersion={wb.selectVersion}
        onExport={() => setExportOpen(true)}
        onHelp={() => setHelpOpen(true)}
        search={inspectorData && <SearchBar ref={searchInput} value={query} onChange={setQuery} hits={hits.length} active={hitIndex} onStep={stepHit} pending={query.trim() !== deferredQuery || search.isFetching} capped={hits.length >= SEARCH_LIMIT} />}
      />
      {deletedElsewhere && (
        <p role="alert" className="flex items-center gap-3 border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200" data-testid="deleted-elsewhere">
          <span className="flex-1">This transcript was deleted in another tab. What is shown here is no longer stored; it can be brought back there with Undo while the toast is up.</span>
          <Link href="/" className="font-medium underline">
            Back to the library
          </Link>
        </p>
      )}
      <LiveStrip live={live} onFollow={followLive} />
      {inspectorData?.meta.dataLoss && <DataLossBanner loss={inspectorData.meta.dataLoss} />}
      <section className="shrink-0 border-b border-neutral-200 px-3 pb-1 pt-2 dark:border-neutral-800" aria-label="Timeline">
        {inspectorData && timeline ? (
          <>
            <div className="mb-1 flex items-start justify-between gap-4 px-1">
              <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-0.5">
                <TimelineLegend timeline={timeline} />
                <LineLegend wb={wb} />
                {preview && <FateLegend />}
              </div>
              <div className="flex shrink-0 items-start gap-2">
                <PolicyMenu shown={shownPolicies} onShown={setPolicies} />
                <AxisToggle axis={axis} onAxis={setAxis} turns={turnCount} calls={callCount} />
                <TriggerSelect wb={wb} />
              </div>
            </div>
            {/* The chart and the side panel mount after the rest of the inspector, each in a task
                of its own (issue 31): in one React commit the page's first layout and the chart's
                (its packing, its width read) made a task of 130 ms CPU at 2,000 turns. */}
            <AfterPaint frames={2} fallback={chartPending}>
              <Suspense fallback={chartPending}>
                <TimelineChart
                  key={axis}
                  timeline={timeline}
                  unit={axis === 'calls' ? 'call' : 'turn'}
                  cursorTurn={axis === 'calls' ? cursorCall : cursorTurn}
                  selection={selection}
                  onSelectTurn={showBar}
                  onCursorChange={showBar}
                  onSelectRange={setSelection}
                  compaction={chartCompaction}
                  hitTurns={hitTurns}
                  activeHitTurn={activeHitTurn}
                />
              </Suspense>
            </AfterPaint>
            <InspectorLedgerStrip
              id={id}
              versionId={wb.versionId}
              stamp={`${wb.version.updatedAt}|${wb.version.steps.length}`}
              later={wb.previewPending}
              bars={bars.length}
              barOf={(e) => (axis === 'calls' ? barOfMessage(bars, e.atMessage) : Math.max(0, bars.findIndex((b) => b.turn >= e.atTurn)))}
              onOpen={(e) => {
                setLedgerFocus(e.id);
                setTab('Compactions');
                showTurn(e.atTurn);
              }}
            />
            {shownPolicies.length > 0 && <PolicyChips id={id} model={chosenModel} shown={shownPolicies} view={replay.data} pending={replay.isFetching} error={replay.error} />}
            <SelectionRow selection={selection} selectedTokens={selectedTokens} wb={wb} bars={bars} onClear={() => setSelection(null)} />
          </>
        ) : (
          <div className="h-[288px] animate-pulse rounded bg-neutral-100 dark:bg-neutral-900" aria-label="Loading the timeline" />
        )}
      </section>
      <div className="grid min-h-0 flex-1 grid-cols-[minmax(0,1fr)_26rem]">
        <div className="min-h-0">
          {rowIndex.data && inspectorData ? (
            <FateContext.Provider value={preview?.changed ?? null}>
              <SearchContext.Provider value={highlight}>
                <OverheadContext.Provider value={timeline?.overhead ?? 0}>
                  <PinsContext.Provider value={pinControl}>
                    <Suspense fallback={<MessagesPending />}>
                      <MessageList ref={list} id={id} index={rowIndex.data} activeTurn={cursorTurn} />
                    </Suspense>
                  </PinsContext.Provider>
                </OverheadContext.Provider>
              </SearchContext.Provider>
            </FateContext.Provider>
          ) : rowIndex.isError ? (
            <p role="alert" className="p-4 text-sm text-red-700">
              Could not load the messages: {userMessage(rowIndex.error)}
            </p>
          ) : (
            <MessagesPending />
          )}
        </div>
        {inspectorData ? (
          <AfterPaint frames={1} fallback={<div className="border-l border-neutral-200 dark:border-neutral-800" />}>
            <Suspense fallback={<div className="border-l border-neutral-200 dark:border-neutral-800" />}>
              <InspectorTabs data={inspectorData} wb={wb} tab={tab} onTab={setTab} selection={selection} selectedTokens={selectedTokens} onJump={showTurn} ledgerFocus={ledgerFocus} />
            </Suspense>
          </AfterPaint>
        ) : (
          <div className="border-l border-neutral-200 dark:border-neutral-800" />
        )}
      </div>
      <Suspense fallback={null}>
        {inspectorData && <ExportDialog id={id} open={exportOpen} onClose={() => setExportOpen(false)} versions={wb.versions} versionId={wb.versionId} />}
        <HelpOverlay open={helpOpen} onClose={() => setHelpOpen(false)} />
      </Suspense>
    </div>
  );
}

/** The timeline chart's height before it mounts: its canvas (210 px), the overview strip and the y-scale toggle. */
const TIMELINE_CHART_HEIGHT = 210 + 26 + 18;
/** The message list's place while its rows (or its code) load. */
function MessagesPending() {
  return (
    <div className="space-y-3 p-4" aria-label="Loading messages">
      {[0, 1, 2].map((i) => (
        <div key={i} className="h-16 animate-pulse rounded bg-neutral-100 dark:bg-neutral-900" />
      ))}
    </div>
  );
}

/** Where the chart will be, until it is drawn (its code loaded, then mounted after the first paint). */
const chartPending = <div className="animate-pulse rounded bg-neutral-100 dark:bg-neutral-900" style={{ height: TIMELINE_CHART_HEIGHT }} aria-label="Drawing the timeline" data-testid="timeline-pending" />;

/**
 * `fallback` until the browser has painted `frames` frames since this mounted, then `children`
 * (and from then on; at the latest after 1 s): what it wraps renders in a task of its own, after
 * the page's first paint. Its own state, so only its subtree re-renders when it switches.
 */
function AfterPaint({ frames, fallback, children }: { frames: number; fallback: ReactNode; children: ReactNode }) {
  const [after, setAfter] = useState(false);
  useEffect(() => {
    if (after) return;
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let left = frames;
    const tick = () => {
      if (--left > 0) frame = requestAnimationFrame(tick);
      // In a transition: React splits the mount of what it wraps (the chart, the side panel) into short tasks.
      else timer = setTimeout(() => startTransition(() => setAfter(true)), 0);
    };
    frame = requestAnimationFrame(tick);
    // A hidden tab runs no frames: it shows the children anyway.
    const guard = setTimeout(() => setAfter(true), 1000);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(guard);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [after, frames]);
  return after ? children : fallback;
}

/** User-timing mark of an overlay replay asked of the worker (detail: the policies), bench/app.ts reads it (issue 31). */
export const REPLAY_REQUEST_MARK = 'cs-replay:request';

/** The policies drawn, as one query key: the same set in any tick order is one replay. */
function policyKey(ids: readonly string[]): string {
  return [...ids].sort().join(',');
}

/** The overlay's replay query: the one the URL's `pol` names, and the one a tick prefetches. */
function replayQuery(id: string, model: string, key: string) {
  return {
    queryKey: ['replay', id, model, '', key],
    queryFn: () => {
      performance.mark(REPLAY_REQUEST_MARK, { detail: key });
      return getBridge().replay(undefined, id, { ...(model && { model }), policies: key.split(',') });
    },
  };
}

/** Position in `bars` (ordered by turn) of turn `turn`'s bar, or −1. */
function barOfTurn(bars: readonly TimelineTurn[], turn: number): number {
  const at = lowerBound(bars, turn);
  return at < bars.length && bars[at].turn === turn ? at : -1;
}

/** Which replayed policies the timeline draws (issue 14); none by default. */
function PolicyMenu({ shown: fromUrl, onShown }: { shown: readonly string[]; onShown: (ids: string[]) => void }) {
  // Ticks show at once; the URL (and the replay) follow.
  const [shown, setShown] = useState<readonly string[]>(fromUrl);
  const urlKey = fromUrl.join(',');
  useEffect(() => setShown(urlKey ? urlKey.split(',') : []), [urlKey]);
  const set = (ids: string[]) => {
    setShown(ids);
    onShown(ids);
  };
  return (
    <details
      className="relative text-[11px]"
      data-testid="policy-menu"
      onKeyDown={(e) => {
        if (e.key === 'Escape') e.currentTarget.open = false;
      }}
    >
      <summary className="cursor-pointer select-none rounded border border-neutral-300 px-2 py-0.5 text-neutral-700 dark:border-neutral-700 dark:text-neutral-300">
        Policies{shown.length ? ` · ${shown.length}` : ''}
      </summary>
      <div className="absolute right-0 z-30 mt-1 max-h-80 w-64 overflow-auto rounded border border-neutral-200 bg-white p-2 shadow-lg dark:border-neutral-700 dark:bg-neutral-900">
        <p className="mb-1 text-neutral-500">Replay each policy on this session and draw the prompt it would have sent at every call (rings: where it compacted).</p>
        {REPLAY_POLICY_LIST.map((p) => (
          <label key={p.id} className="flex items-center gap-1.5 py-0.5">
            <input
              type="checkbox"
              checked={shown.includes(p.id)}
              data-testid={`policy-toggle-${p.id}`}
              onChange={(e) => set(e.target.checked ? [...shown, p.id] : shown.filter((x) => x !== p.id))}
            />
            <span className="inline-block h-0.5 w-4" style={{ backgroundColor: policyColor(p.id) }} aria-hidden="true" />
            {p.label}
          </label>
        ))}
      </div>
    </details>
  );
}

/** The shown policies' numbers, as the Replay page's table and `simulate --json` have them. */
function PolicyChips({ id, model, shown, view, pending, error }: { id: string; model: string; shown: readonly string[]; view: ReplayView | undefined; pending: boolean; error: unknown }) {
  if (error) return <p className="px-1 text-xs text-red-700" role="alert">The replay failed: {userMessage(error)}</p>;
  if (!view) return <p className="px-1 text-xs text-neutral-500" data-testid="policy-pending">{pending ? 'Replaying the session under each policy…' : ''}</p>;
  return (
    <ul className="flex flex-wrap items-center gap-x-3 gap-y-0.5 px-1 pt-0.5 text-[11px] text-neutral-600 dark:text-neutral-400" data-testid="policy-chips">
      {view.series
        .filter((x) => shown.includes(x.id))
        .map((x) => (
          <li key={x.id} data-testid="policy-chip" data-policy={x.id} data-usd={x.row.usd} data-compactions={x.row.compactions} data-peak={x.row.peakContext} data-points={x.prompts.length} data-fired={x.fired.reduce((n, f) => n + f, 0)} data-stored={x.storedAt ? 'yes' : 'no'} className="flex items-center gap-1">
            <span className="inline-block h-0.5 w-4" style={{ backgroundColor: policyColor(x.id) }} aria-hidden="true" />
            <b className="font-medium text-neutral-800 dark:text-neutral-200">{x.label}</b>
            <span className="tabular-nums">
              {view.model.priced ? `$${x.row.usd.toFixed(2)}` : 'no price'} · {x.row.compactions} compaction{x.row.compactions === 1 ? '' : 's'} · peak {formatTokens(x.row.peakContext)}
              {x.row.callsOverWindow > 0 && ` · ${x.row.callsOverWindow} calls over the window`}
            </span>
          </li>
        ))}
      {pending && shown.some((p) => !view.series.some((x) => x.id === p)) && (
        <li className="text-neutral-500" data-testid="policy-pending">
          Replaying…
        </li>
      )}
      <li>
        <Link href={`/replay?id=${encodeURIComponent(id)}${model ? `&m=${encodeURIComponent(model)}` : ''}`} className="text-blue-700 underline dark:text-blue-400" data-testid="policy-full-table">
          full table
        </Link>
      </li>
    </ul>
  );
}

/** Turns | Calls: the timeline's x-axis (one bar per turn, or per model call). */
function AxisToggle({ axis, onAxis, turns, calls }: { axis: 'turns' | 'calls'; onAxis: (a: 'turns' | 'calls') => void; turns: number; calls: number }) {
  return (
    <div role="radiogroup" aria-label="Timeline x-axis" className="flex items-center rounded border border-neutral-300 text-[11px] dark:border-neutral-700" data-testid="axis-toggle" data-axis={axis}>
      {(
        [
          ['turns', `Turns ${turns.toLocaleString('en-US')}`, 'One bar per turn (a user prompt and everything until the next)'],
          ['calls', `Calls ${calls.toLocaleString('en-US')}`, 'One bar per model call (an assistant message and the tool results answering it): agent runs are one turn of many calls'],
        ] as const
      ).map(([a, label, title]) => (
        <button
          key={a}
          type="button"
          role="radio"
          aria-checked={axis === a}
          title={title}
          onClick={() => onAxis(a)}
          disabled={a === 'calls' && calls === 0}
          className={`px-2 py-0.5 tabular-nums ${axis === a ? 'bg-neutral-800 text-white dark:bg-neutral-200 dark:text-neutral-900' : 'text-neutral-600 disabled:text-neutral-300 dark:text-neutral-300'}`}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** The file lost data on import: said above the timeline, where the user looks first (the full list is in the Info panel). */
function DataLossBanner({ loss }: { loss: { count: number; first: string } }) {
  return (
    <p role="alert" className="shrink-0 border-b border-amber-300 bg-amber-50 px-4 py-1.5 text-xs text-amber-950 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-100" data-testid="inspector-data-loss">
      <span aria-hidden="true">⚠ </span>
      <strong>Incomplete import:</strong> {loss.first}
      {loss.count > 1 && ` (and ${loss.count - 1} more part${loss.count === 2 ? '' : 's'} not read; see Import warnings in Info)`}. What is shown and counted here leaves that out.
    </p>
  );
}

function SelectionRow({ selection, selectedTokens, wb, bars, onClear }: { selection: [number, number] | null; selectedTokens: number; wb: Workbench; bars: readonly TimelineTurn[]; onClear: () => void }) {
  const preview = wb.compaction.preview;
  const ctx = preview?.tokens.context;
  return (
    <div className="flex h-7 items-center gap-3 px-1 text-xs" aria-live="polite">
      {selection ? (
        <span data-testid="selection-summary">
          {rangeLabel(selection, wb.axis)}
          {wb.axis === 'calls' && bars[selection[0]] && ` (turn${bars[selection[0]].ofTurn === bars[selection[1]]?.ofTurn ? '' : 's'} ${(bars[selection[0]].ofTurn ?? 0) + 1}${bars[selection[0]].ofTurn === bars[selection[1]]?.ofTurn ? '' : `–${(bars[selection[1]]?.ofTurn ?? 0) + 1}`})`}:{' '}
          <strong className="tabular-nums" data-testid="selection-total" data-tokens={selectedTokens}>
            {formatTokens(selectedTokens)} tokens
          </strong>
          {preview?.tokens.selection && !wb.previewPending && (
            <span className="ml-1 tabular-nums text-neutral-500">
              {preview.tokens.selection.before !== selectedTokens && `· ${formatTokens(preview.tokens.selection.before)} in view `}→ {formatTokens(preview.tokens.selection.after)} (
              {formatDelta(preview.tokens.selection.after - preview.tokens.selection.before, preview.tokens.selection.before)})
            </span>
          )}
          <button type="button" className="ml-2 text-blue-700 underline dark:text-blue-400" onClick={onClear} data-testid="clear-selection">
            clear
          </button>
        </span>
      ) : (
        <span className="text-neutral-500">Drag across bars to select {wb.axis === 'calls' ? 'model calls' : 'turns'} · wheel zooms · shift-drag pans · double-click a compaction selects its span</span>
      )}
      <span className="flex-1" />
      {ctx && (
        <span className="tabular-nums text-neutral-600 dark:text-neutral-400" data-testid="context-after">
          {wb.planActive ? 'preview' : wb.version.name}: <span title={CONTEXT_DEFINITION}>context from the file</span> {formatTokens(ctx.before)} → <strong className="text-teal-700 dark:text-teal-400">{formatTokens(ctx.after)}</strong> ({formatDelta(ctx.after - ctx.before, ctx.before)})
          {wb.previewPending && <span className="ml-1">…</span>}
        </span>
      )}
    </div>
  );
}

function LineLegend({ wb }: { wb: Workbench }) {
  const { lines } = wb.compaction;
  return (
    <ul className="flex flex-wrap items-center gap-x-3 text-[11px] text-neutral-600 dark:text-neutral-400" aria-label="Budget lines">
      {lines.inputBudget !== undefined && (
        <li className="flex items-center gap-1">
          <span className="inline-block w-4 border-t-[1.5px] border-dashed border-red-600" aria-hidden="true" /> Input budget
        </li>
      )}
      {lines.trigger && (
        <li className="flex items-center gap-1">
          <span className="inline-block w-4 border-t-2 border-dotted border-amber-600" aria-hidden="true" /> Auto trigger
        </li>
      )}
      {lines.target !== undefined && (
        <li className="flex items-center gap-1">
          <span className="inline-block w-4 border-t-[1.5px] border-dashed border-teal-500" aria-hidden="true" /> Target
        </li>
      )}
    </ul>
  );
}

function FateLegend() {
  return (
    <ul className="flex flex-wrap items-center gap-x-3 text-[11px] text-neutral-600 dark:text-neutral-400" aria-label="Fates">
      {SAVED_FATES.map((f) => (
        <li key={f} className="flex items-center gap-1">
          <span className="inline-block h-2.5 w-2.5 text-neutral-600 dark:text-neutral-300" style={fateSwatchStyle(f)} aria-hidden="true" />
          {FATE_STYLE[f].label}
        </li>
      ))}
    </ul>
  );
}

function TriggerSelect({ wb }: { wb: Workbench }) {
  const options = wb.triggers.filter((t) => t.thresholdTokens !== undefined);
  if (options.length === 0) return null;
  return (
    <label className="flex shrink-0 items-center gap-1 text-[11px] text-neutral-500">
      auto trigger
      <select
        value={wb.triggerPeer}
        onChange={(e) => wb.setTriggerPeer(e.target.value)}
        className="max-w-[11rem] rounded border border-neutral-300 bg-white px-1 py-0.5 text-[11px] dark:border-neutral-700 dark:bg-neutral-900"
        aria-label="Auto trigger of"
        data-testid="trigger-select"
      >
        <option value="">none</option>
        {options.map((t) => (
          <option key={t.peer} value={t.peer}>
            {t.label}
            {t.firesAtTurn !== null ? ` · fires at turn ${t.firesAtTurn + 1}` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
