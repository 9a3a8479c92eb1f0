'use client';

import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { fileBudgetFor, modelTokensOf } from '@/lib/tokens/model-view';
import { hintFor, type ResponseMode, type RequestMode, type RetentionHint } from '@/lib/compaction/hints';
import { getBridge } from '@/lib/engine/client';
import { useListReady } from '../inspector/useListReady';
import { userMessage } from '@/lib/errors';
import type { PreviewSummary } from '@/lib/engine/preview';
import type { SummaryProgress } from '@/lib/summarize/run';
import { Button } from '../ui/Button';
import { formatTokens } from '../ui/format';
import { CONTEXT_DEFINITION, contextParts } from '../ui/context-label';
import { formatDelta } from './numbers';
import { MANUAL_REDUCERS, planFromConfig, setHint, shortToolName, targetReference, type ManualReducerId, type PlanState, cacheDecision } from './plan';
import { SMALL_OVERHEAD } from '../inspector/SidePanel';
import type { Workbench } from '../inspector/useWorkbench';
import { reducerLabel } from '../ui/reducer-labels';
import { rangeLabel } from './range-label';

/** Retention as a select value: 'age:N', 'count:N', 'never' ('' = none). */
const RETENTION_CHOICES = ['age:2', 'age:5', 'age:10', 'count:1', 'count:3', 'count:5', 'count:10', 'never'];
function retentionValue(r: RetentionHint | undefined): string {
  if (!r) return '';
  if (r.neverEvict) return 'never';
  if (r.mode === 'count') return `count:${r.keep ?? 5}`;
  return r.turns !== undefined ? `age:${r.turns}` : '';
}
function retentionFromValue(v: string): RetentionHint | undefined {
  if (v === '') return undefined;
  if (v === 'never') return { mode: 'age', neverEvict: true };
  const [mode, n] = v.split(':');
  return mode === 'count' ? { mode: 'count', keep: Number(n), neverEvict: false } : { mode: 'age', turns: Number(n), neverEvict: false };
}
function retentionLabel(v: string): string {
  if (v === 'never') return '∞';
  const [mode, n] = v.split(':');
  return mode === 'count' ? `last ${n}` : `${n} t`;
}

const field = 'rounded border border-neutral-300 bg-white px-1.5 py-0.5 text-xs tabular-nums dark:border-neutral-700 dark:bg-neutral-900';
const heading = 'mb-1.5 text-[11px] font-semibold uppercase tracking-wide text-neutral-500';

/** The selection's (or the whole context's) tokens before → after, at the top of the panel. */
/** "Turns 3–7" or, on the call axis, "Calls 12–40" (1-based, as the user reads them). */

export function SelectionTotals({ selection, selectedTokens, preview, pending, contextNow, overhead = 0, logTokens = 0, axis = 'turns' }: { selection: [number, number] | null; selectedTokens: number; preview: PreviewSummary | null; pending: boolean; contextNow: number; overhead?: number; logTokens?: number; axis?: 'turns' | 'calls' }) {
  // While pending, the preview held on screen is the previous selection's or plan's: its numbers are not shown as this one's.
  const pair = pending ? undefined : selection ? preview?.tokens.selection : preview?.tokens.context;
  // In the model's view: a source compaction may already have taken part of the selection out.
  const before = pair ? pair.before : selection ? selectedTokens : contextNow;
  return (
    // data-preview / data-range: the settled signal the app bench (bench/app.ts) waits for — "settled"
    // once the numbers shown are this selection's (data-range, 0-based inclusive; '' = whole context).
    <div className="rounded-md border border-neutral-200 bg-neutral-50 px-3 py-2 dark:border-neutral-800 dark:bg-neutral-900/60" aria-live="polite" data-testid="selection-totals" data-preview={pending ? 'pending' : pair ? 'settled' : 'none'} data-range={selection ? `${selection[0]}-${selection[1]}` : ''}>
      <div className="flex items-baseline justify-between text-[11px] text-neutral-500">
        <span>{selection ? rangeLabel(selection, axis) : overhead > 0 ? 'Whole context, from the file' : 'Whole context'}</span>
        {pending && (
          <span className="animate-pulse" data-testid="previewing">
            previewing…
          </span>
        )}
      </div>
      <div className="mt-0.5 flex items-baseline gap-2 tabular-nums" data-testid="plan-selection-total">
        <span className="text-lg font-semibold">{before !== undefined ? formatTokens(before) : '—'}</span>
        {pair && (
          <>
            <span className="text-neutral-400">→</span>
            <span className="text-lg font-semibold text-teal-700 dark:text-teal-400" data-testid="preview-after">
              {formatTokens(pair.after)}
            </span>
            <span className="text-xs text-neutral-500">{formatDelta(pair.after - pair.before, pair.before)}</span>
          </>
        )}
        <span className="text-xs text-neutral-500">tokens</span>
      </div>
      {preview && selection && !pending && (
        <p className="mt-0.5 text-[11px] tabular-nums text-neutral-500">
          {pair && pair.before !== selectedTokens && `${formatTokens(selectedTokens)} in the log, ${formatTokens(pair.before)} still in the model's view · `}
          {/* The turn header's "context" (components/ui/context-label.ts): the file's part + the overhead (issue 30). */}
          <span title={CONTEXT_DEFINITION} data-testid="plan-whole-context" data-context={contextParts(preview.tokens.context.before, overhead).total}>
            whole context {formatTokens(contextParts(preview.tokens.context.before, overhead).total)} → {formatTokens(contextParts(preview.tokens.context.after, overhead).total)}
            {overhead > 0 && ` (with ${formatTokens(overhead)} overhead)`}
          </span>
        </p>
      )}
      {!selection && (overhead >= SMALL_OVERHEAD || logTokens > contextNow) && (
        <p className="mt-0.5 text-[11px] tabular-nums text-neutral-500" data-testid="plan-overhead" title={CONTEXT_DEFINITION}>
          The part of the context from the file
          {logTokens > contextNow && <> (the log holds {formatTokens(logTokens)}: the source&apos;s own compaction took the rest out)</>}.
          {overhead >= SMALL_OVERHEAD && (
            <>
              {' '}
              <span data-testid="plan-context">{capitalize(contextParts(before ?? contextNow, overhead).text)}</span>: the overhead is the system prompt and tool schemas the file leaves out (from the recorded usage), and no step can remove it.
            </>
          )}
        </p>
      )}
    </div>
  );
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What Auto's cache check chose on this preview: compacted (with the saving it expects) or not (with what it would have cost more). */
function CacheDecision({ notes, pending }: { notes: readonly string[]; pending: boolean }) {
  const d = pending ? null : cacheDecision(notes);
  if (!d) return null;
  return (
    <p className={`text-[11px] leading-snug tabular-nums ${d.compacted ? 'text-neutral-500' : 'text-amber-800 dark:text-amber-300'}`} data-testid="auto-cache-decision" data-compacted={d.compacted}>
      {d.compacted ? `Cache check: ${d.text}` : `Cache check: Auto chose not to compact: ${d.text.replace(/^not compacted: /, '')}`}
    </p>
  );
}

/** Auto's closing note "still N tokens > target T: why": where it stopped, and by how much it misses (issue #27 item 5). */
export function missedTarget(notes: readonly string[], dropUserMessages = false): { after: number; target: number; text: string } | null {
  for (const n of notes) {
    const m = /^(?:auto: )?still ([\d,]+) tokens > target ([\d,]+): (.*)$/.exec(n);
    if (!m) continue;
    const after = Number(m[1].replace(/,/g, ''));
    const target = Number(m[2].replace(/,/g, ''));
    const over = after - target;
    return { after, target, text: `Auto stopped at ${after.toLocaleString('en-US')} tokens: it misses the target (${target.toLocaleString('en-US')}) by ${over.toLocaleString('en-US')} tokens (${((over / target) * 100).toFixed(1)} %)${dropUserMessages ? '' : ' and keeps every message the user typed'}. Why: ${m[3]}.` };
  }
  return null;
}

function MissedTarget({ notes, pending, dropUserMessages }: { notes: readonly string[]; pending: boolean; dropUserMessages: boolean }) {
  const d = pending ? null : missedTarget(notes, dropUserMessages);
  if (!d) return null;
  return (
    <p className="text-[11px] leading-snug tabular-nums text-amber-800 dark:text-amber-300" data-testid="auto-missed-target" data-over={d.after - d.target}>
      {d.text}
    </p>
  );
}

function TargetReference({ target, context, selection, selectionTokens, axis }: { target: number; context: number; selection: [number, number] | null; selectionTokens: number; axis: 'turns' | 'calls' }) {
  const r = targetReference(target, context, selection ? { label: rangeLabel(selection, axis), tokens: selectionTokens } : null);
  return (
    <p className={`text-[11px] leading-snug tabular-nums ${r.unreachable ? 'text-amber-800 dark:text-amber-300' : 'text-neutral-500'}`} data-testid="target-reference" data-unreachable={r.unreachable}>
      {r.text}
    </p>
  );
}

function NumberField({ label, value, onChange, min = 0, testId, width = 'w-24' }: { label: string; value: number; onChange: (n: number) => void; min?: number; testId?: string; width?: string }) {
  return (
    <label className="flex items-center justify-between gap-2 text-xs">
      <span className="text-neutral-600 dark:text-neutral-400">{label}</span>
      <input
        type="number"
        min={min}
        value={Number.isFinite(value) ? value : ''}
        onChange={(e) => {
          const n = Number(e.target.value);
          if (e.target.value !== '' && Number.isFinite(n)) onChange(Math.max(min, n));
        }}
        className={`${field} ${width} text-right`}
        data-testid={testId}
        aria-label={label}
      />
    </label>
  );
}

/** The agent tail: what stays untouched when the kept turns alone exceed the target (one turn of many calls). */
function KeepCallsField({ plan, setPlan }: { plan: Workbench['plan']; setPlan: Workbench['setPlan'] }) {
  if (plan.tail === 'turns') return <p className="text-xs text-neutral-500">Whole turns are kept, always (the imported config says tail = &quot;turns&quot;).</p>;
  return (
    <div title="An agent run is one prompt opening one turn of many model calls: protecting the turn would protect everything. When the kept turns alone exceed the target, only the last N model calls (and the prompt) stay untouched.">
      <NumberField label="…or, when those exceed the target, the last N model calls" value={plan.keepLastCalls} min={1} onChange={(n) => setPlan((p) => ({ ...p, keepLastCalls: Math.round(n) }))} testId="keep-last-calls" width="w-16" />
      {plan.keepLastMessages !== undefined && (
        <div title="sven's compaction_keep_recent: the newest N messages stay untouched on every compaction, not only in emergency; the boundary moves back so no tool result loses its call.">
          <NumberField label="Keep the newest N messages untouched (sven keep_recent)" value={plan.keepLastMessages} min={0} onChange={(n) => setPlan((p) => ({ ...p, keepLastMessages: Math.max(0, Math.round(n)) }))} testId="keep-last-messages" width="w-16" />
        </div>
      )}
    </div>
  );
}

export function PlanTab({ id, wb, selection, selectedTokens }: { id: string; wb: Workbench; selection: [number, number] | null; selectedTokens: number }) {
  const { plan, setPlan } = wb;
  const preview = wb.preview.data?.preview ?? null;
  const context = preview?.tokens.context.before ?? wb.contextNow;
  // One definition with the CLI's default --budget (lib/compaction/budget.ts fileBudgetFor).
  const view = wb.calibration ?? { overhead: 0, factor: 1 };
  const inputBudget = wb.model ? { model: wb.model.contextWindow - wb.model.maxOutput, file: fileBudgetFor(wb.model.contextWindow - wb.model.maxOutput, view), overhead: view.overhead, factor: view.factor } : null;
  return (
    <div className="space-y-4">
      <SelectionTotals selection={selection} selectedTokens={selectedTokens} preview={wb.planActive || wb.version.steps.length ? preview : null} pending={wb.previewPending} contextNow={wb.contextNow} overhead={wb.overhead} logTokens={wb.logTokens} axis={wb.axis} />
      {!wb.planActive && <p className="-mt-2 text-[11px] text-neutral-500">Drag across the timeline to select turns, or change the plan: the preview follows.</p>}
      {wb.preview.isError && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 px-2 py-1 text-xs text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300">
          Preview failed: {userMessage(wb.preview.error)}
        </p>
      )}

      <div role="radiogroup" aria-label="Strategy" className="grid grid-cols-2 rounded-md border border-neutral-300 p-0.5 text-xs dark:border-neutral-700">
        {(['auto', 'manual'] as const).map((m) => (
          <button
            key={m}
            type="button"
            role="radio"
            aria-checked={plan.mode === m}
            onClick={() => setPlan((p) => ({ ...p, mode: m }))}
            className={`rounded px-2 py-1 font-medium ${plan.mode === m ? 'bg-neutral-900 text-white dark:bg-neutral-100 dark:text-neutral-900' : 'text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800'}`}
          >
            {m === 'auto' ? 'Auto' : 'Pick reducers'}
          </button>
        ))}
      </div>

      {plan.mode === 'auto' ? (
        <section className="space-y-2" aria-label="Auto compaction">
          <div className="flex items-end gap-2">
            <label className="flex-1 text-xs">
              <span className="text-neutral-600 dark:text-neutral-400">Target for the whole context (tokens)</span>
              <input
                type="number"
                min={1}
                value={plan.targetBudget}
                onChange={(e) => {
                  const n = Number(e.target.value);
                  if (Number.isFinite(n) && n > 0) setPlan((p) => ({ ...p, targetBudget: Math.round(n) }));
                }}
                className={`${field} mt-0.5 block w-full text-right text-sm`}
                data-testid="target-budget"
                aria-label="Target budget"
              />
            </label>
            <Button className="!px-2 !py-1 text-xs" onClick={() => setPlan((p) => ({ ...p, targetBudget: Math.max(1, Math.round(context * 0.5)) }))} disabled={!context} title={`Aim at half of the whole context (${formatTokens(context)} tokens), not of the selection`} aria-label="50 % of the whole context">
              50 % of context
            </Button>
            {inputBudget && (
              <Button className="!px-2 !py-1 text-xs" onClick={() => setPlan((p) => ({ ...p, targetBudget: inputBudget.file }))} title="The model's input budget (window − max output), as the file may hold it: minus the invisible overhead, ÷ the calibration factor" data-testid="input-budget-button">
                input budget
              </Button>
            )}
          </div>
          {inputBudget && (
            <p className="text-[11px] leading-snug tabular-nums text-neutral-500" data-testid="input-budget-breakdown" data-file={inputBudget.file}>
              Input budget {formatTokens(inputBudget.model)} ({wb.model!.label}) = {formatTokens(inputBudget.file)} in the file
              {inputBudget.overhead > 0 && <> + {formatTokens(inputBudget.overhead)} invisible overhead</>}
              {inputBudget.factor !== 1 && <>, × {inputBudget.factor.toFixed(2)} calibration from the recorded usage</>}
              {!wb.calibration && <> (no recorded usage: no overhead or calibration known)</>}.
              {plan.targetBudget !== inputBudget.file && <> At the current target ({formatTokens(plan.targetBudget)} in the file) the model is sent about {formatTokens(modelTokensOf(plan.targetBudget, inputBudget))}.</>}
            </p>
          )}
          {context > 0 && <TargetReference target={plan.targetBudget} context={context} selection={selection} selectionTokens={preview?.tokens.selection?.before ?? selectedTokens} axis={wb.axis} />}
          <NumberField label="Keep last N turns untouched" value={plan.keepLast} onChange={(n) => setPlan((p) => ({ ...p, keepLast: Math.round(n) }))} testId="keep-last" width="w-16" />
          <KeepCallsField plan={plan} setPlan={setPlan} />
          <label className="flex items-center gap-2 text-xs">
            <input type="checkbox" checked={plan.autoSummarize} onChange={(e) => setPlan((p) => ({ ...p, autoSummarize: e.target.checked }))} />
            Summarize the overflow when the free reducers are not enough
          </label>
          {plan.autoSummarize && (
            <NumberField
              label={`…only while the context is above this % of the window${wb.model ? ` (${formatTokens(wb.model.contextWindow)})` : ''}; 0 = always`}
              value={plan.summarizeAbovePct}
              onChange={(n) => setPlan((p) => ({ ...p, summarizeAbovePct: Math.min(100, Math.round(n)) }))}
              testId="summarize-threshold"
              width="w-16"
            />
          )}
          <label className="flex items-center gap-2 text-xs" title="Keep the compaction only when the window forces it (90 % of the model's input budget) or when what it saves on the calls estimated to come (as many as made so far) pays for rewriting the prompt cache it breaks, at the model's cache prices">
            <input type="checkbox" checked={plan.cacheAware === true} onChange={(e) => setPlan((p) => ({ ...p, cacheAware: e.target.checked }))} data-testid="cache-aware" />
            Only when it pays for the prompt cache it breaks
          </label>
          {plan.cacheAware && <CacheDecision notes={preview?.reducers.flatMap((r) => r.notes) ?? []} pending={wb.previewPending} />}
          <label className="flex items-center gap-2 text-xs" title="Off: emergency drops tool content and the agent's words, never a message the user typed (nor a summary quoting one); Auto stops at that floor and says by how much it misses the target. On: it may drop them, and the report names each one.">
            <input type="checkbox" checked={plan.dropUserMessages === true} onChange={(e) => setPlan((p) => ({ ...p, dropUserMessages: e.target.checked }))} data-testid="drop-user-messages" />
            Emergency may drop user messages
          </label>
          <MissedTarget notes={preview?.reducers.filter((r) => r.reducer === 'auto').flatMap((r) => r.notes) ?? []} pending={wb.previewPending} dropUserMessages={plan.dropUserMessages === true} />
          <p className="text-[11px] leading-snug text-neutral-500">
            Runs the free reducers cheapest first (reasoning, duplicates, retention, truncation, stubs, attachments, unused schemas) and stops as soon as the context fits; then summarizes
            prefix-ward; emergency last.
          </p>
        </section>
      ) : (
        <section aria-label="Reducers">
          <ul className="space-y-1">
            {MANUAL_REDUCERS.map((r) => {
              const state = plan.manual[r.id];
              const on = state?.enabled ?? false;
              const toggle = (enabled: boolean) => setPlan((p) => ({ ...p, manual: { ...p.manual, [r.id]: { enabled, knobs: p.manual[r.id]?.knobs ?? {} } } }));
              return (
                <li key={r.id} className={`rounded px-1.5 py-1 ${on ? 'bg-blue-50/70 dark:bg-blue-950/30' : ''}`}>
                  <label className="flex items-start gap-2 text-xs" title={r.help}>
                    <input type="checkbox" checked={on} onChange={(e) => toggle(e.target.checked)} aria-label={r.id} className="mt-0.5" />
                    <span>
                      <span className="font-medium">{reducerLabel(r.id)}</span> <span className="font-mono text-[10px] text-neutral-500">{r.id}</span>
                      <span className="block text-[11px] leading-snug text-neutral-500">{r.help}</span>
                    </span>
                  </label>
                  {on && r.id === 'summarize' && <NativeOption plan={plan} setPlan={setPlan} />}
                  {on &&
                    r.knobs?.map((k) => (
                      <div key={k.key} className="ml-6 mt-1">
                        <NumberField
                          label={k.label}
                          value={state?.knobs[k.key] ?? k.default}
                          min={k.min ?? 0}
                          width="w-20"
                          onChange={(n) => setPlan((p) => ({ ...p, manual: { ...p.manual, [r.id]: { enabled: true, knobs: { ...p.manual[r.id as ManualReducerId]?.knobs, [k.key]: n } } } }))}
                        />
                      </div>
                    ))}
                </li>
              );
            })}
          </ul>
          <div className="mt-2">
            <NumberField label="Keep last N turns untouched" value={plan.keepLast} onChange={(n) => setPlan((p) => ({ ...p, keepLast: Math.round(n) }))} testId="keep-last" width="w-16" />
            <KeepCallsField plan={plan} setPlan={setPlan} />
          </div>
          <Tangents id={id} plan={plan} setPlan={setPlan} preview={wb.previewPending ? null : preview} />
        </section>
      )}

      <div className="flex items-center gap-2">
        <Button
          variant="primary"
          onClick={() => void wb.apply()}
          disabled={!wb.draft || wb.busy !== null || !wb.preview.data || wb.previewPending || wb.draftIsNoop}
          title={wb.draftIsNoop ? 'This plan changes nothing on these turns: there is nothing to apply' : 'Apply the plan as a step of this version (Enter)'}
          data-testid="apply"
        >
          Apply
        </Button>
        <Button onClick={() => void wb.undo()} disabled={wb.version.steps.length === 0 || wb.busy !== null} title="Remove the last step of this version (z)" data-testid="undo">
          Undo
        </Button>
        {wb.redo && (
          <Button onClick={() => void wb.redo?.()} disabled={wb.busy !== null} title="Apply the step Undo removed again" data-testid="redo">
            Redo
          </Button>
        )}
        <span className="text-[11px] text-neutral-500" aria-live="polite">
          {wb.busy ?? (wb.version.steps.length > 0 ? `${wb.version.name}: ${wb.version.steps.length} step${wb.version.steps.length === 1 ? '' : 's'}` : 'Applying forks a new version')}
        </span>
      </div>
      {wb.draftIsNoop && (
        <p className="text-[11px] text-amber-800 dark:text-amber-300" data-testid="apply-noop">
          This plan changes nothing here (0 tokens): nothing to apply. Select other turns, lower keep-last, or pick other reducers.
        </p>
      )}
      {wb.actionError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {wb.actionError}
        </p>
      )}

      <SummariesBox id={id} wb={wb} />
      <HintsTable id={id} plan={plan} setPlan={setPlan} />
      <ImportConfig plan={plan} setPlan={setPlan} />
    </div>
  );
}

/** seed 002 Native: the provider's own compaction API answers the summaries; unavailable (and why) offline or with Gemini. */
function NativeOption({ plan, setPlan }: { plan: Workbench['plan']; setPlan: Workbench['setPlan'] }) {
  const settings = useQuery({ queryKey: ['summary-settings'], queryFn: ({ signal }) => getBridge().summarySettings(signal), staleTime: 10_000 });
  const why = settings.data?.nativeUnavailable;
  return (
    <div className="ml-6 mt-1 text-[11px]" data-testid="native-option">
      <label className={`flex items-start gap-1.5 ${why ? 'text-neutral-400' : ''}`}>
        <input type="checkbox" checked={!why && !!plan.native} disabled={!!why || !settings.data} onChange={(e) => setPlan((p) => ({ ...p, native: e.target.checked }))} aria-label="native" className="mt-0.5" />
        <span>
          <span className="font-medium">Native</span>: the provider’s own compaction (OpenAI /v1/responses/compact, Anthropic compact_20260112) answers the summaries
        </span>
      </label>
      <p className="ml-5 text-neutral-500" data-testid="native-carry">
        OpenAI’s compaction is an encrypted item only the model reads. Apply and Export here write a note and the user messages it kept in its place, so the model no longer sees those turns; the CLI’s <code>compact</code> carries the item itself into OpenAI Responses requests and Codex rollouts.
      </p>
      {why && (
        <p className="ml-5 text-neutral-500" data-testid="native-unavailable">
          Unavailable: {why}
        </p>
      )}
    </div>
  );
}

function SummariesBox({ id, wb }: { id: string; wb: Workbench }) {
  const settings = useQuery({ queryKey: ['summary-settings'], queryFn: ({ signal }) => getBridge().summarySettings(signal), staleTime: 10_000 });
  const [progress, setProgress] = useState<SummaryProgress | null>(null);
  const [running, setRunning] = useState<AbortController | null>(null);
  const [result, setResult] = useState<string | null>(null);
  // The last run's failures are stored with the summaries: the reason stays shown (here and in the
  // Report tab's notes) after leaving the tab, until the next run.
  const standing = useQuery({ queryKey: ['summary-failures', id], queryFn: ({ signal }) => getBridge().summaryFailures(signal, id) });
  const requests = wb.preview.data?.preview.summaryRequests ?? 0;
  if (!settings.data) return null;
  const run = async () => {
    const ctl = new AbortController();
    setRunning(ctl);
    setResult(null);
    try {
      const r = await getBridge().runSummaries(ctl.signal, id, wb.versionId, wb.draft, (p) => setProgress(p));
      setResult(`${r.produced} summar${r.produced === 1 ? 'y' : 'ies'} written${r.failures.length ? `, ${r.failures.length} failed: ${r.failures[0].message}` : ''}`);
      wb.refreshVersions();
      await Promise.all([wb.preview.refetch(), standing.refetch()]);
    } catch (e) {
      setResult((e as Error).name === 'AbortError' ? 'Cancelled: summaries written so far are kept.' : userMessage(e));
    } finally {
      setRunning(null);
      setProgress(null);
    }
  };
  return (
    <section className="rounded-md border border-teal-200 px-2.5 py-2 text-xs dark:border-teal-900/60" aria-label="Summaries">
      <h3 className={heading}>Summaries</h3>
      <p className="text-neutral-600 dark:text-neutral-400">{settings.data.description}</p>
      {requests > 0 && (
        <p className="mt-1 text-neutral-600 dark:text-neutral-400">
          {requests} span{requests === 1 ? '' : 's'} summarized offline in this preview.
        </p>
      )}
      {/* A key that failed reads as '' (no offline stand-in, so no request): the button stays to try again. */}
      {!settings.data.offline && (requests > 0 || (standing.data?.length ?? 0) > 0) && (
        <div className="mt-1.5 flex items-center gap-2">
          {running ? (
            <Button className="!px-2 !py-1 text-xs" onClick={() => running.abort()}>
              Cancel
            </Button>
          ) : (
            <Button className="!px-2 !py-1 text-xs" onClick={() => void run()}>
              Write with the LLM
            </Button>
          )}
          <span aria-live="polite" className="text-neutral-500">
            {progress && `span ${progress.index + 1}: ${progress.phase}${progress.phase === 'delta' ? ` (${progress.chars.toLocaleString('en-US')} chars)` : ''}`}
          </span>
        </div>
      )}
      {result && <p className="mt-1 text-neutral-600 dark:text-neutral-400">{result}</p>}
      {!result && !running && standing.data && standing.data.length > 0 && (
        <p className="mt-1 text-neutral-600 dark:text-neutral-400">
          Last run: {standing.data.length} failed: {standing.data[0].message} ({settings.data.onFailure === 'leave' ? 'range left as it is' : 'fell back to emergency compaction'})
        </p>
      )}
      {settings.data.offline && (
        <a href="/settings" className="mt-1 inline-block text-blue-700 underline dark:text-blue-400">
          Configure an LLM provider
        </a>
      )}
    </section>
  );
}

function HintsTable({ id, plan, setPlan }: { id: string; plan: PlanState; setPlan: Workbench['setPlan'] }) {
  const listReady = useListReady(id);
  const stats = useQuery({ queryKey: ['tool-stats', id], queryFn: ({ signal }) => getBridge().toolStats(signal, id), staleTime: Infinity, enabled: listReady });
  if (!stats.data || stats.data.length === 0) return null;
  const cell = 'rounded border border-neutral-300 bg-white px-0.5 py-0 text-[11px] dark:border-neutral-700 dark:bg-neutral-900';
  return (
    <section aria-label="Per-tool hints">
      <h3 className={heading}>Per-tool hints</h3>
      <div className="overflow-x-auto">
        <table className="w-full border-separate border-spacing-x-1 text-[11px] tabular-nums" data-testid="hints-table">
          <thead className="text-neutral-500">
            <tr>
              <th className="py-0.5 text-left font-normal">tool</th>
              <th className="font-normal" title="Call arguments">request</th>
              <th className="font-normal" title="Tool results">response</th>
              <th className="font-normal">dedup</th>
              <th className="font-normal" title="Retention: 'N t' results expire after N turns (age); 'last N' only the newest N results of the tool live (count); ∞ never evicted">retain</th>
            </tr>
          </thead>
          <tbody>
            {stats.data.map((t) => {
              const h = hintFor(t.name, plan.hints);
              const retention = retentionValue(h.retention);
              return (
                <tr key={t.name} className="border-t border-neutral-100 align-top dark:border-neutral-800" data-testid="hint-row" data-tool={t.name}>
                  <td className="max-w-[9rem] py-1" title={t.name}>
                    {/* Wrapped, not cut: MCP tools share long prefixes (mcp__context7__…) and must stay told apart. */}
                    <div className="break-all font-mono leading-tight">{shortToolName(t.name)}</div>
                    <div className="text-neutral-500">
                      {t.calls} call{t.calls === 1 ? '' : 's'} · {formatTokens(t.callTokens + t.resultTokens)}
                    </div>
                  </td>
                  <td>
                    <select aria-label={`${t.name} request`} className={cell} value={h.request ?? 'keep'} onChange={(e) => setPlan((p) => setHint(p, t.name, { request: e.target.value as RequestMode }))}>
                      <option value="keep">keep</option>
                      <option value="strip">strip</option>
                    </select>
                  </td>
                  <td>
                    <select aria-label={`${t.name} response`} className={cell} value={h.response ?? 'keep'} onChange={(e) => setPlan((p) => setHint(p, t.name, { response: e.target.value as ResponseMode }))}>
                      <option value="keep">keep</option>
                      <option value="strip">strip</option>
                      <option value="remove">remove</option>
                    </select>
                  </td>
                  <td className="text-center">
                    <input
                      type="checkbox"
                      aria-label={`${t.name} dedup`}
                      checked={h.dedup === true || h.dedup === 'read-only'}
                      title={h.dedup === 'read-only' ? 'Only read-only commands (cat, ls, grep, git status, …) are deduplicated' : undefined}
                      onChange={(e) => setPlan((p) => setHint(p, t.name, { dedup: e.target.checked }))}
                    />
                  </td>
                  <td>
                    <select
                      aria-label={`${t.name} retention`}
                      className={cell}
                      value={retention}
                      onChange={(e) => {
                        const v = e.target.value;
                        setPlan((p) => setHint(p, t.name, { retention: retentionFromValue(v) }));
                      }}
                    >
                      <option value="">—</option>
                      {RETENTION_CHOICES.includes(retention) || retention === '' ? null : <option value={retention}>{retentionLabel(retention)}</option>}
                      {RETENTION_CHOICES.map((v) => (
                        <option key={v} value={v}>
                          {retentionLabel(v)}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function ImportConfig({ plan, setPlan }: { plan: PlanState; setPlan: Workbench['setPlan'] }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notes, setNotes] = useState<string[]>([]);
  const fileInput = useRef<HTMLInputElement>(null);
  const load = async (fileName: string, body: string) => {
    setError(null);
    const out = await getBridge().parseConfig(undefined, fileName, body);
    if (out.kind === 'error') {
      setError(userMessage(out.error));
      return;
    }
    setPlan((p) => planFromConfig(p, out.plan));
    setNotes(out.plan.warnings);
  };
  return (
    <details className="rounded-md border border-neutral-200 px-2.5 py-1.5 text-xs dark:border-neutral-800">
      <summary className="cursor-pointer font-medium">Import config (JP TOML, sven YAML){plan.source && <span className="ml-1 font-normal text-neutral-500">· from {plan.source}</span>}</summary>
      <div className="mt-2 space-y-2">
        <input
          ref={fileInput}
          type="file"
          accept=".toml,.yaml,.yml,text/plain"
          aria-label="Config file"
          className="block w-full text-[11px]"
          onChange={async (e) => {
            const f = e.target.files?.[0];
            if (f) await load(f.name, await f.text());
            e.target.value = '';
          }}
        />
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={4} placeholder={'[conversation.compaction]\nkeep_last = 2'} aria-label="Paste a config" className={`${field} block w-full font-mono`} />
        <Button className="!px-2 !py-1 text-xs" disabled={!text.trim()} onClick={() => void load(/^\s*\[/m.test(text) ? 'pasted.toml' : 'pasted.yaml', text)}>
          Import pasted config
        </Button>
        {error && (
          <p role="alert" className="text-red-700 dark:text-red-400">
            {error}
          </p>
        )}
        {notes.length > 0 && (
          <ul className="list-disc pl-4 text-amber-800 dark:text-amber-300">
            {notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
      </div>
    </details>
  );
}

/**
 * classify-tangents (RFD 036): the classifier proposes (Settings' LLM when one is configured, else
 * the offline heuristic), the user ticks what goes; the ticked turns join the plan, the preview
 * shows what leaves, and Apply confirms. Nothing is removed before that.
 */
function Tangents({ id, plan, setPlan, preview }: { id: string; plan: PlanState; setPlan: Workbench['setPlan']; preview: PreviewSummary | null }) {
  const [asked, setAsked] = useState(false);
  const q = useQuery({
    queryKey: ['tangents', id, plan.keepLast],
    queryFn: ({ signal }) => getBridge().classifyTangents(signal, id, plan.keepLast),
    enabled: asked,
    staleTime: Infinity,
  });
  const chosen = new Set(plan.tangentTurns ?? []);
  const toggle = (turn: number, on: boolean) =>
    setPlan((p) => {
      const next = new Set(p.tangentTurns ?? []);
      if (on) next.add(turn);
      else next.delete(turn);
      return { ...p, tangentTurns: [...next].sort((a, b) => a - b) };
    });
  return (
    <div className="mt-3 rounded border border-neutral-200 px-2 py-1.5 text-xs dark:border-neutral-800" data-testid="tangents">
      <div className="flex items-center justify-between gap-2">
        <span className="font-mono font-medium">classify-tangents</span>
        <Button className="!px-2 !py-0.5 text-xs" onClick={() => (asked ? void q.refetch() : setAsked(true))} disabled={q.isFetching} data-testid="find-tangents">
          {q.isFetching ? 'Classifying…' : 'Find tangents'}
        </Button>
      </div>
      <p className="mt-0.5 text-[11px] leading-snug text-neutral-500">Proposes turns off the task; tick the ones to remove, check the preview, then Apply. Nothing is removed before.</p>
      {q.isError && <p role="alert" className="mt-1 text-red-700 dark:text-red-400">{userMessage(q.error)}</p>}
      {q.data && (
        <div className="mt-1.5 space-y-1">
          <p className="text-[11px] text-neutral-500" data-testid="tangents-by">
            {q.data.by === 'llm' ? `Proposed by ${q.data.provider}.` : 'Proposed by the offline heuristic (asides, turns whose files and ids appear nowhere else); configure a provider in Settings for an LLM classifier.'}
          </p>
          {q.data.error && <p className="text-[11px] text-amber-700 dark:text-amber-400">{q.data.error}</p>}
          {q.data.proposals.length === 0 && <p className="text-neutral-500">No tangents found.</p>}
          <ul className="space-y-0.5">
            {q.data.proposals.map((t) => (
              <li key={t.turn}>
                <label className="flex items-start gap-1.5">
                  <input type="checkbox" className="mt-0.5" checked={chosen.has(t.turn)} onChange={(e) => toggle(t.turn, e.target.checked)} aria-label={`remove turn ${t.turn + 1}`} />
                  <span>
                    <span className="font-medium">Turn {t.turn + 1}</span> <span className="text-neutral-500">— {t.reason}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
          {chosen.size > 0 && <p className="text-[11px] text-teal-700 dark:text-teal-400">{chosen.size} turn(s) in the plan: see the preview, Apply to confirm.</p>}
          {/* Why a ticked turn changes nothing (already inside a summary, or out of the range): the reducer's own words. */}
          {chosen.size > 0 &&
            (() => {
              const why = (preview?.reducers ?? []).filter((r) => r.reducer === 'classify-tangents').flatMap((r) => r.notes.filter((n) => !/^removed \d+ tangent/.test(n)));
              return why.length > 0 ? (
                <ul className="space-y-0.5 text-[11px] text-amber-800 dark:text-amber-300" data-testid="tangents-why">
                  {why.map((n) => (
                    <li key={n}>{n}</li>
                  ))}
                </ul>
              ) : null;
            })()}
        </div>
      )}
    </div>
  );
}
