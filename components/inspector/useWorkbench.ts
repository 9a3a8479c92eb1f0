'use client';

/**
 * The inspector's compaction state in one hook: the version shown (URL `v`), the plan being
 * edited and its draft step, the debounced preview (stale runs cancelled through TanStack Query's
 * signal → the bridge terminates the preview worker), apply/undo, the model whose window and
 * budget lines are drawn, a peer trigger, and a version comparison.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useLayoutEffect, useMemo, useState } from 'react';
import type { Step, Version } from '@/lib/compaction/types';
import { getBridge } from '@/lib/engine/client';
import { useListReady } from './useListReady';
import { isAbortError } from '@/lib/errors';
import type { DraftStep } from '@/lib/engine/compaction';
import type { InspectorData } from '@/lib/engine/api';
import { ORIGINAL_VERSION } from '@/lib/engine/versions';
import { inputBudgetOf, lookupModel, MODEL_CATALOG, type ModelInfo } from '@/lib/tokens/catalog';
import { defaultPlan, newStepId, planToDraft, type PlanState } from '../plan/plan';
import type { TimelineCompaction } from '../timeline/TimelineChart';
import type { Timeline } from '@/lib/engine/timeline';
import { formatSelection } from './selection';

/**
 * User-timing marks of a preview's way, in the page: the query sent to the worker, its answer back
 * (detail: the worker's own timing), the React commit that shows it (bench/app.ts, issue 31).
 */
export const PREVIEW_MARK = { request: 'cs-preview:request', answer: 'cs-preview:answer', shown: 'cs-preview:shown' } as const;

/** Wait this long after the last plan change before previewing (typing a budget is several changes). */
export const PREVIEW_DEBOUNCE_MS = 250;

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * The preview request, once it has stopped changing: a plan edit (typing a budget is several) waits
 * PREVIEW_DEBOUNCE_MS; a new selection with the same plan is one change (a mouse-up, the end of a
 * key burst: the timeline hands over one selection) and is previewed at once (issue 31).
 */
function usePreviewRequest<T extends { plan: unknown }>(requested: T): T {
  const [shown, setShown] = useState(requested);
  useEffect(() => {
    if (requested === shown) return;
    if (requested.plan === shown.plan) {
      setShown(requested);
      return;
    }
    const t = setTimeout(() => setShown(requested), PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [requested, shown]);
  return shown;
}

export function useUrlParam(): (patch: Record<string, string | null>) => void {
  const params = useSearchParams();
  const router = useRouter();
  return useCallback(
    (patch) => {
      const next = new URLSearchParams(params.toString());
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) next.delete(k);
        else next.set(k, v);
      }
      router.replace(`/inspect?${next.toString()}`, { scroll: false });
    },
    [params, router],
  );
}

export interface Workbench {
  /** The timeline's bars: a selection is a range of turns, or of model calls. */
  axis: 'turns' | 'calls';
  versions: Version[];
  version: Version;
  versionId: string;
  selectVersion: (id: string) => void;
  plan: PlanState;
  setPlan: (p: PlanState | ((p: PlanState) => PlanState)) => void;
  /** The user touched the plan (or selected turns): the draft is previewed. */
  planActive: boolean;
  setPlanActive: (on: boolean) => void;
  draft: DraftStep | null;
  preview: ReturnType<typeof usePreviewQuery>;
  /**
   * Ask the worker for a new selection's preview in the selection's own event (the mouse-up), before
   * the URL names it: the query the page then shows is this one, already running (issue 31).
   */
  previewSelection: (range: [number, number]) => void;
  apply: () => Promise<void>;
  undo: () => Promise<void>;
  /** Re-apply the step the last Undo removed (null when there is none to redo on this version). */
  redo: (() => Promise<void>) | null;
  /** The preview on screen is not (yet) the one of the current plan and selection: a drag or knob change is being previewed. */
  previewPending: boolean;
  /** The draft previewed changes nothing (no block changed, 0 tokens): Apply would add an empty step. */
  draftIsNoop: boolean;
  busy: string | null;
  actionError: string | null;
  model: ModelInfo | undefined;
  modelId: string;
  setModelId: (id: string) => void;
  triggerPeer: string;
  setTriggerPeer: (peer: string) => void;
  triggers: Array<{ peer: string; label: string; thresholdTokens?: number; firesAtTurn: number | null }>;
  compareWith: string | null;
  setCompareWith: (id: string | null) => void;
  comparison: ReturnType<typeof useCompareQuery>;
  compaction: TimelineCompaction;
  contextWindow: number | undefined;
  /** The context the model saw last, before any step (the timeline's last bar without overhead). */
  contextNow: number;
  /** Tokens the model saw that the file does not hold (system prompt, tool schemas): no step can remove them. */
  overhead: number;
  /** The recorded usage's invisible overhead and calibration factor (the budget's model view), when the file records usage. */
  calibration?: Timeline['calibration'];
  /** Every token of the log (Info's total), when the source compacted it (then more than contextNow); else 0. */
  logTokens: number;
  refreshVersions: () => void;
}

/**
 * Cancelling a stale preview terminates the preview lane's worker, which rejects every call on it
 * with AbortError — including the fresh preview that just replaced it. That one was not cancelled
 * (TanStack does not retry queries it cancelled itself), so run it again on the next worker.
 */
function retryIfCaughtInAbort(count: number, error: unknown): boolean {
  return isAbortError(error) && count < 3;
}

/** The preview's query: the one the page shows, and the one a new selection asks for in its own event (previewSelection). */
function previewQuery(id: string, versionId: string, versionStamp: string, draft: DraftStep | null, selection: [number, number] | null, axis: 'turns' | 'calls') {
  return {
    queryKey: ['preview', id, versionId, versionStamp, draft, selection, axis],
    queryFn: async ({ signal }: { signal: AbortSignal }) => {
      // Marks of the preview's way (bench/app.ts splits mouse-up → settled with them, issue 31).
      performance.mark(PREVIEW_MARK.request);
      const out = await getBridge().preview(signal, id, { versionId, draft, selection, axis });
      performance.mark(PREVIEW_MARK.answer, { detail: out.kind === 'preview' ? out.timing : undefined });
      if (out.kind === 'error') throw Object.assign(new Error(out.error.message), out.error);
      return out;
    },
  };
}

function usePreviewQuery(id: string, versionId: string, versionStamp: string, draft: DraftStep | null, selection: [number, number] | null, enabled: boolean, axis: 'turns' | 'calls') {
  return useQuery({
    ...previewQuery(id, versionId, versionStamp, draft, selection, axis),
    enabled,
    placeholderData: keepPreviousData,
    retry: retryIfCaughtInAbort,
    retryDelay: 0,
    staleTime: Infinity,
  });
}

function useCompareQuery(id: string, a: string, b: string | null, stamp: string, model: string) {
  return useQuery({
    queryKey: ['compare', id, a, b, stamp, model],
    // The other version first: the difference reads as "this version − the other".
    queryFn: ({ signal }) => getBridge().compareVersions(signal, id, b!, a, model),
    enabled: b !== null && b !== a,
    retry: retryIfCaughtInAbort,
    retryDelay: 0,
    staleTime: Infinity,
  });
}

/** The context the model saw last (after the source's own compactions): what a target is a share of. */
function modelViewTokens(data: InspectorData | undefined): number {
  const turns = data?.timeline.turns ?? [];
  return turns.length ? turns[turns.length - 1].contextTotal : data?.meta.tokens.total ?? 0;
}

/** `axis`: the timeline's bars — `selection` is then a range of turns, or of model calls (a `calls` step). */
export function useWorkbench(id: string, data: InspectorData | undefined, selection: [number, number] | null, axis: 'turns' | 'calls' = 'turns'): Workbench {
  const params = useSearchParams();
  const setParams = useUrlParam();
  const queryClient = useQueryClient();
  const versionId = params.get('v') ?? ORIGINAL_VERSION;

  const versionsQuery = useQuery({
    queryKey: ['versions', id],
    queryFn: ({ signal }) => getBridge().listVersions(signal, id),
    enabled: id !== '' && data !== undefined,
    staleTime: Infinity,
  });
  const versions = useMemo(() => versionsQuery.data ?? [], [versionsQuery.data]);
  const version = useMemo<Version>(
    () => versions.find((v) => v.id === versionId) ?? { id: ORIGINAL_VERSION, transcriptId: id, name: 'Original', steps: [], createdAt: '', updatedAt: '' },
    [versions, versionId, id],
  );
  const versionStamp = `${version.id}:${version.updatedAt}:${version.steps.length}`;

  const [plan, setPlanState] = useState<PlanState>(() => defaultPlan(modelViewTokens(data)));
  const [planTouched, setPlanTouched] = useState(false);
  const [stepId, setStepId] = useState(newStepId);
  useEffect(() => {
    // A new transcript: a fresh default plan aimed at half its context.
    if (data) setPlanState(defaultPlan(modelViewTokens(data)));
  }, [data?.meta.id]); // eslint-disable-line react-hooks/exhaustive-deps
  const setPlan = useCallback((p: PlanState | ((p: PlanState) => PlanState)) => {
    setPlanTouched(true);
    setPlanState(p);
  }, []);

  // Model: from the URL (`m`), else the transcript's.
  const modelParam = params.get('m');
  const model = useMemo(() => lookupModel(modelParam ?? data?.meta.model), [modelParam, data?.meta.model]);
  const modelId = model?.id ?? '';
  const setModelId = useCallback((m: string) => setParams({ m: m || null }), [setParams]);

  const planActive = planTouched || selection !== null;
  const draftNow = useMemo(() => (planActive ? planToDraft(plan, stepId, selection, model?.contextWindow, axis) : null), [planActive, plan, stepId, selection, model?.contextWindow, axis]);
  // The selection goes with the draft it belongs to: a new range previewed at once with the previous
  // range's draft (the draft alone was debounced) was a preview nobody asked for, and its
  // cancellation stopped the warm preview worker (issue 31: the second range read the log again, cold).
  // A new selection is previewed at once; plan edits wait for the debounce (usePreviewRequest).
  const requested = useMemo(() => ({ draft: draftNow, selection, plan }), [draftNow, selection, plan]);
  const debounced = usePreviewRequest(requested);
  const draft = debounced.draft;
  // Apply → the version it made, shown: the router's URL update (?v=…, the selection cleared) lands
  // a render after the apply's own state. Meanwhile the page held the old version and selection with
  // the applied step (or a fresh step id) as its draft, and previewed that — a projection nobody
  // asked for, whose cancellation a moment later stopped the warm preview worker, so the new
  // version's preview read the log back and projected again, cold (issue 31: 14 s at 2,000 turns).
  // No preview is asked for until the URL names the version the Apply made.
  const [landing, setLanding] = useState<string | null>(null);
  const landed = landing !== null && ((version.id === landing && selection === null) || (versionsQuery.isSuccess && !versions.some((v) => v.id === landing)));
  useEffect(() => {
    if (!landed) return;
    setLanding(null);
    setStepId(newStepId());
  }, [landed]);
  const previewEnabled = data !== undefined && versionsQuery.isSuccess && (draft !== null || version.steps.length > 0);
  const preview = usePreviewQuery(id, version.id, versionStamp, draft, debounced.selection, previewEnabled && landing === null, axis);
  // A new selection's preview, asked in its own event: through the URL, the request waited for the
  // router's transition and the inspector's render (71–464 ms, session 16). The same query the
  // render asks for once the URL holds the selection (same key: this plan, step id, version, range).
  const previewSelection = useCallback(
    (range: [number, number]) => {
      if (data === undefined || !versionsQuery.isSuccess || landing !== null) return;
      const next = planToDraft(plan, stepId, range, model?.contextWindow, axis);
      if (next === null) return;
      void queryClient.prefetchQuery({ ...previewQuery(id, version.id, versionStamp, next, range, axis), retry: retryIfCaughtInAbort, retryDelay: 0, staleTime: Infinity });
    },
    [data, versionsQuery.isSuccess, landing, plan, stepId, model?.contextWindow, axis, queryClient, id, version.id, versionStamp],
  );
  // While the debounce holds a new drag back, or the query runs, the card still holds the previous
  // preview (keepPreviousData): it is the last one's numbers, not this selection's.
  const previewPending = landing !== null || (previewEnabled && (debounced !== requested || preview.isFetching));
  const draftLines = draft ? (preview.data?.preview.reducers ?? []).filter((r) => r.stepId === draft.id) : [];
  const draftIsNoop = draft !== null && !previewPending && preview.data !== undefined && draftLines.every((r) => r.saved === 0 && r.events === 0);

  const listReady = useListReady(id);
  // The preview worker reads the log and builds what every preview needs while the user looks at
  // the page, once the list is up (it shares the cores with the list's first reads): the first
  // drag's preview then costs what the next ones do (issue 31).
  useQuery({
    queryKey: ['warm-preview', id],
    queryFn: async () => {
      await getBridge().warmPreview(undefined, id);
      return true;
    },
    enabled: id !== '' && data !== undefined && listReady,
    staleTime: Infinity,
    retry: false,
  });
  const triggersQuery = useQuery({
    queryKey: ['triggers', id, modelId],
    queryFn: ({ signal }) => getBridge().peerTriggers(signal, id, modelId || undefined),
    enabled: data !== undefined && listReady,
    staleTime: Infinity,
  });
  const [triggerPeer, setTriggerPeer] = useState('');
  const triggers = useMemo(() => triggersQuery.data ?? [], [triggersQuery.data]);
  useEffect(() => {
    // Default to the peer of the transcript's own harness when there is one.
    if (triggerPeer || triggers.length === 0 || !data) return;
    const fmt = data.meta.format.split('-')[0];
    const own = triggers.find((t) => t.peer.startsWith(fmt) && t.thresholdTokens !== undefined);
    if (own) setTriggerPeer(own.peer);
  }, [triggers, data, triggerPeer]);

  const [compareWith, setCompareWith] = useState<string | null>(null);
  const comparison = useCompareQuery(id, version.id, compareWith, versionStamp + versions.map((v) => v.updatedAt).join(), modelId);

  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const refreshVersions = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: ['versions', id] });
  }, [queryClient, id]);

  const selectVersion = useCallback((v: string) => setParams({ v: v === ORIGINAL_VERSION ? null : v }), [setParams]);

  const applyMutation = useMutation({
    mutationFn: async (step: DraftStep) => {
      // An imported JP config's `fork = true`: the step goes to a new version forked from this one
      // (the original always forks: the log stays as imported).
      const target = plan.fork && version.id !== ORIGINAL_VERSION ? (await getBridge().forkVersion(undefined, id, version.id)).id : version.id;
      return getBridge().applyStep(undefined, id, target, step);
    },
  });
  const apply = useCallback(async () => {
    // Only what the user has seen previewed is applied (Enter on a fresh page does nothing).
    const step = planActive ? planToDraft(plan, stepId, selection, model?.contextWindow, axis) : null;
    if (!step) return;
    setBusy('Applying…');
    setActionError(null);
    try {
      const next = await applyMutation.mutateAsync(step);
      await queryClient.invalidateQueries({ queryKey: ['versions', id] });
      setUndone(null);
      // The next draft's step id is renewed once the new version is shown (see `landing`).
      setLanding(next.id);
      setPlanTouched(false);
      setParams({ v: next.id, sel: null });
    } catch (e) {
      setActionError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }, [planActive, plan, stepId, selection, axis, applyMutation, queryClient, id, setParams]);

  // The step the last Undo removed, to Redo on the version it left (cleared by any other Apply).
  const [undone, setUndone] = useState<{ versionId: string; steps: number; step: Step } | null>(null);
  const undo = useCallback(async () => {
    if (version.steps.length === 0) return;
    const step = version.steps[version.steps.length - 1];
    setBusy('Undoing…');
    setActionError(null);
    try {
      const shown = await getBridge().undoStep(undefined, id, version.id);
      await queryClient.invalidateQueries({ queryKey: ['versions', id] });
      setUndone({ versionId: shown.id, steps: shown.steps.length, step });
      // Undoing the only step of a version an Apply forked removes it: back to the original. The
      // turns the step covered are selected again, so the user can change the plan and re-apply.
      // A call range is selected again on the call axis (sel=cA-B), as the turn axis keeps its turns.
      const r = step.range;
      const sel = r.kind === 'turns' || r.kind === 'calls' ? formatSelection([r.from, r.to], r.kind) : null;
      setParams({ v: shown.id === ORIGINAL_VERSION ? null : shown.id, sel, ...(r.kind === 'calls' && axis !== 'calls' && { axis: 'calls' }) });
    } catch (e) {
      setActionError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }, [version, id, queryClient, setParams, axis]);
  const canRedo = undone !== null && undone.versionId === version.id && undone.steps === version.steps.length;
  const redo = useCallback(async () => {
    if (!undone) return;
    setBusy('Redoing…');
    setActionError(null);
    try {
      const next = await getBridge().applyStep(undefined, id, undone.versionId, undone.step);
      await queryClient.invalidateQueries({ queryKey: ['versions', id] });
      setUndone(null);
      setLanding(next.id);
      setParams({ v: next.id, sel: null });
    } catch (e) {
      setActionError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }, [undone, id, queryClient, setParams]);

  const contextWindow = model?.contextWindow ?? data?.timeline.contextWindow;
  const trigger = triggers.find((t) => t.peer === triggerPeer);
  const lines = useMemo(
    () => ({
      ...(model && { inputBudget: inputBudgetOf(model) }),
      ...(trigger?.thresholdTokens !== undefined && { trigger: { tokens: trigger.thresholdTokens, label: trigger.label } }),
      ...(planActive && plan.mode === 'auto' && { target: plan.targetBudget }),
    }),
    [model, trigger, planActive, plan.mode, plan.targetBudget],
  );
  const previewData = preview.data?.preview ?? null;
  // The commit that holds a new answer (before its paint).
  useLayoutEffect(() => {
    if (previewData) performance.mark(PREVIEW_MARK.shown);
  }, [previewData]);
  const compare = useMemo(
    () => (comparison.data ? { a: { name: comparison.data.a.name, curve: comparison.data.a.curve }, b: { name: comparison.data.b.name, curve: comparison.data.b.curve } } : null),
    [comparison.data],
  );
  const compaction = useMemo<TimelineCompaction>(() => ({ preview: previewEnabled ? previewData : null, lines, compare }), [previewEnabled, previewData, lines, compare]);

  return {
    axis,
    versions,
    version,
    versionId: version.id,
    selectVersion,
    plan,
    setPlan,
    planActive,
    setPlanActive: setPlanTouched,
    draft,
    preview,
    previewSelection,
    apply,
    undo,
    redo: canRedo ? redo : null,
    previewPending,
    draftIsNoop,
    busy,
    actionError,
    model,
    modelId,
    setModelId,
    triggerPeer,
    setTriggerPeer,
    triggers,
    compareWith,
    setCompareWith,
    comparison,
    compaction,
    contextWindow,
    contextNow: modelViewTokens(data),
    overhead: data?.timeline.overhead ?? 0,
    calibration: data?.timeline.calibration,
    logTokens: data?.timeline.bands.length ? data.meta.tokens.total : 0,
    refreshVersions,
  };
}

export const MODELS = MODEL_CATALOG;
