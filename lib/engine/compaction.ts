/**
 * The inspector's compaction calls (worker side): versions, preview of a draft step, apply/undo,
 * compare, export of a version (validated by re-import, with the audit sidecar), summaries with
 * the user's provider, peer triggers, config import. Pure over lib/ (runs in Node tests as is);
 * api.ts spreads these into the `engine` object.
 */
import { transfer } from 'comlink';
import { buildAudit } from '../compaction/audit';
import { ConfigError, parseCompactionConfig, type CompactionPlan } from '../compaction/config';
import { lostIdentifiers, prepareLostByCategory, prepareLostIdentifiers } from '../compaction/lost';
import { prepareDedupPartners } from '../compaction/reducers/dedup-tools';
import { modelCalls } from '../compaction/calls';
import { addPointers } from '../compaction/pointers';
import { modelViewTotals, projectTranscript, startingContext } from '../compaction/project';
import type { Projection, Step, SummaryKey, Version } from '../compaction/types';
import type { Repo } from '../db/repo';
import { listSummaryRows } from '../db/summaries';
import { ExportError, serializeError, userMessage, type SerializedError } from '../errors';
import { conversionTargets, convertTranscript, type ConversionLoss } from '../formats/convert';
import { importBytes } from '../formats/import';
import { formatById } from '../formats/registry';
import { isFatalForExport, newPairingIssues, validatePairing } from '../model/pairing';
import type { Transcript } from '../model/types';
import { encodeExport, sniffTextEncoding, UTF8, type TextEncodingOf } from '../read/encode';
import { triggersFor, type TriggerPoint } from '../simulate/replay';
import { createProvider } from '../summarize/providers';
import { nativeCompactor, nativeUnavailable } from '../summarize/providers/native';
import { annotateFailures, artifactKey, classifyTangentsWithProvider, fillSummaries, type SummaryFailure, type SummaryProgress } from '../summarize/run';
import { proposeTangents } from '../compaction/tangents';
import { SUMMARY_SETTINGS_KEY, describeSettings, promptTemplateOf, providerConfigOf, restoreSummarySettings, type SummarySettings } from '../summarize/settings';
import { templateHash } from '../summarize/prompts';
import { withFailurePolicy } from '../summarize/from-settings';
import { failureToRow, preloadedStore, rowToFailure, storedToRow } from '../summarize/store';
import { lookupModel, type ModelInfo } from '../tokens/catalog';
import { summarizePreview, toolStats, type PreviewSummary, type ToolStat } from './preview';
import * as versions from './versions';
import { readPins } from './ledger';

export interface CompactionDeps {
  repo: () => Repo;
  getTranscript: (id: string) => Promise<Transcript>;
}

/** A step being edited in the Plan panel: it has an id already (summaries are keyed by step id). */
export type DraftStep = Omit<Step, 'createdAt'> & { createdAt?: string };

export interface PreviewRequest {
  versionId: string;
  /** The step being edited, previewed on top of the version's steps; null = the version itself. */
  draft?: DraftStep | null;
  /** Turns [a, b] (model calls on the call axis) whose before/after tokens the Plan panel shows. */
  selection?: [number, number] | null;
  /** The timeline's axis: the per-bar series and the selection by turn (default) or by model call. */
  axis?: 'turns' | 'calls';
}

/**
 * `timing`: the worker's wall ms for the projection (the log read, projectTranscript or the
 * remembered one) and for summarizePreview — the page marks them beside its own (issue 31: where
 * mouse-up → preview settled goes; bench/app.ts prints the split).
 */
export type PreviewOutcome = { kind: 'preview'; preview: PreviewSummary; versionSteps: number; timing?: { projectMs: number; summarizeMs: number } } | { kind: 'error'; error: SerializedError };

export interface ExportOptions {
  /** Target format id; default the source's. */
  format?: string;
  /** Also return the audit record sidecar (JSON). */
  withAudit?: boolean;
  /**
   * Issue 27 item 4: each stub and summary names where its full text lives. The app has no path to
   * the source file, so the pointers name lines of a recall file returned beside the export.
   */
  pointers?: boolean;
}

export interface ExportedVersion {
  bytes: Uint8Array;
  /**
   * The same bytes as a Blob, made where the file was written (the worker): the page downloads it
   * by reference. Made on the page, a Blob of a 10,000-turn export copied ~90 MB in one task of
   * 165 ms CPU (issue 31). Absent where Blob is not (never in a browser).
   */
  blob?: Blob;
  fileName: string;
  mimeType: string;
  dropped: string[];
  /** A conversion's losses by kind, with token counts (empty for the source's own format). */
  losses: ConversionLoss[];
  format: string;
  /**
   * tokens.total of the projection; of the file written imported back, as the model sees it on resume
   * (inspect's tokens.modelView); and of the original as the model saw it (its model view: the same
   * measure, so the done message compares like with like; not the whole log's lines).
   */
  tokens: { projected: number; reimported: number; original: number };
  audit?: { bytes: Uint8Array; fileName: string; blob?: Blob };
  /** With `pointers`: the recall file (JSONL) the pointers name, to keep beside the export. */
  recall?: { bytes: Uint8Array; fileName: string; blob?: Blob };
}

/** `bytes` as a Blob of `type` where the runtime has Blob (see ExportedVersion.blob). */
const blobOf = (bytes: Uint8Array, type: string): { blob?: Blob } => (typeof Blob === 'function' ? { blob: new Blob([bytes as BlobPart], { type }) } : {});

export type ConversionLossesOutcome = { kind: 'losses'; losses: ConversionLoss[]; tokens: { before: number; after: number } } | { kind: 'error'; error: SerializedError };

export type ExportVersionOutcome = { kind: 'file'; file: ExportedVersion } | { kind: 'error'; error: SerializedError };

export interface VersionCurve {
  versionId: string;
  name: string;
  steps: number;
  /** Change of the context at the end of each turn (cumulative, vs the timeline's context of the log). */
  curve: Float64Array;
  total: number;
}

export interface VersionComparison {
  a: VersionCurve;
  b: VersionCurve;
  /** b − a, tokens of the whole context. */
  delta: number;
  /** Price of sending each context once at the model's input price (USD), when the model is known. */
  cost?: { model: string; a: number; b: number; delta: number; cachedA: number; cachedB: number };
}

export interface SummaryRun {
  offline: boolean;
  provider: string;
  produced: number;
  reused: number;
  failures: SummaryFailure[];
}

export type ConfigOutcome = { kind: 'plan'; plan: CompactionPlan } | { kind: 'error'; error: SerializedError };

const DRAFT_CREATED_AT = new Date(0).toISOString();

/** Projections a compaction engine keeps per log (compactionEngine's `remembered`). */
const REMEMBERED_PROJECTIONS = 4;
/** Projections computed (not remembered) so far: tests count that Apply re-projects nothing the preview did. */
export const projectionStats = { projected: 0 };

function mimeOf(fileName: string, fallback: string): string {
  // A name that keeps the source's .gz is written gzip-compressed (lib/read/encode.ts encodeExport).
  if (/\.gz$/i.test(fileName)) return 'application/gzip';
  return /\.jsonl$/i.test(fileName) ? 'application/jsonl' : fallback;
}

function baseName(fileName: string): string {
  return fileName.replace(/\.gz$/i, '').replace(/\.[^.]+$/, '') || 'transcript';
}

/** Tangent proposals for the user to confirm: which classifier made them, and why a configured LLM was not used. */
export interface TangentProposals {
  by: 'llm' | 'heuristic';
  provider?: string;
  proposals: Array<{ turn: number; reason: string }>;
  error?: string;
}

/** Whether a projection differs from another in anything the model would see: tokens, messages or a block's fate. */
function changesAnything(a: Projection, b: Projection): boolean {
  if (a.tokens.after.total !== b.tokens.after.total || a.messages.length !== b.messages.length || a.tools.length !== b.tools.length) return true;
  const fa = a.fates;
  const fb = b.fates;
  const keys = new Set([...Object.keys(fa), ...Object.keys(fb)]);
  for (const k of keys) if ((fa[k]?.kind ?? 'kept') !== (fb[k]?.kind ?? 'kept')) return true;
  return false;
}

/** What a same-format compacted export leaves out of the file (formats that keep no history). */
export interface HistoryLeftOut {
  /** The format keeps the compacted lines as history: nothing is left out. */
  keepsHistory: boolean;
  /** Source messages of the main chain the file no longer holds, and their tokens. */
  messages: number;
  tokens: number;
  /** Of those, summarized (their content is in a summary) and removed. */
  summarized: number;
  removed: number;
}

export function historyLeftOut(log: Transcript, projection: Projection | undefined, keepsHistory: boolean, outText?: string): HistoryLeftOut {
  const out: HistoryLeftOut = { keepsHistory, messages: 0, tokens: 0, summarized: 0, removed: 0 };
  if (!projection) return out;
  const carried = new Set<string>();
  for (const m of projection.messages) if (m.sourceId !== undefined) carried.add(m.sourceId);
  // A format that keeps history writes a taken-out message's lines as they were, before its
  // compaction point: left out is only a message none of whose lines is in the file (JSONL lines).
  const lines = keepsHistory && outText !== undefined ? new Set(outText.split(/\r?\n/)) : undefined;
  if (keepsHistory && !lines) return out;
  for (const m of log.messages) {
    if (m.sidechain || carried.has(m.id)) continue;
    if (lines && m.recordRefs.some((r) => lines.has(log.records[r]?.text ?? ''))) continue;
    out.messages++;
    for (const b of m.blocks) out.tokens += b.tokens;
    if (m.blocks.some((b) => projection.fates[b.id]?.kind === 'summarized')) out.summarized++;
    else out.removed++;
  }
  return out;
}

/** Work the export dialog's calls did (tests count it): saved versions projected, files written. */
export const exportWork = { projections: 0, serializations: 0 };

type Format = NonNullable<ReturnType<typeof formatById>>;
// A projection's file in its log's own format, written once (the note reads it, the export downloads
// it). Text only: a binary format's bytes are transferred to the page, which detaches them.
const serialized = new WeakMap<Projection, Map<string, ReturnType<Format['serialize']>>>();
function serializeOnce(format: Format, log: Transcript, projection: Projection | undefined): ReturnType<Format['serialize']> {
  if (!projection) return format.serialize(log, projection);
  let perFormat = serialized.get(projection);
  const hit = perFormat?.get(format.id);
  if (hit) return hit;
  const out = format.serialize(log, projection);
  exportWork.serializations++;
  if (!out.bytes) {
    if (!perFormat) serialized.set(projection, (perFormat = new Map()));
    perFormat.set(format.id, out);
  }
  return out;
}

/**
 * What every preview of a log needs and no plan changes (the warm-up's parts 1–3; none: all): the
 * lost-identifier index, lost-by-category, dedup-tools' partners, the starting context, the model
 * calls. The worker's `warmPreview` runs it; bench/app.ts runs it before the overlay's cold figure.
 */
export function prepareForPreview(log: Transcript, part?: number): void {
  if (part === undefined || part === 1) prepareLostIdentifiers(log);
  if (part === undefined || part === 2) prepareLostByCategory(log);
  if (part === undefined || part === 3) {
    // dedup-tools' index of the calls with a partner, for the default hints (what Auto's dedup stage asks first).
    prepareDedupPartners(log);
    startingContext(log, 'model-view');
    modelCalls(log);
  }
}

export function compactionEngine(deps: CompactionDeps) {
  const repo = () => deps.repo();

  async function settings(): Promise<SummarySettings> {
    return restoreSummarySettings(await repo().getSetting(SUMMARY_SETTINGS_KEY));
  }

  /**
   * Stored summaries of the configured producer (none when offline: the offline summarizer stands
   * in). A key whose last run failed reads as '' (the reducer falls back as Settings say); the
   * failures the projection actually met are collected in `met` so their reasons reach the report.
   */
  async function summaryLookup(id: string, s: SummarySettings): Promise<{ lookup: (key: SummaryKey) => string | undefined; met: Map<string, SummaryFailure> } | undefined> {
    const cfg = providerConfigOf(s);
    if (!cfg) return undefined;
    const producer = createProvider(cfg).id;
    const tHash = templateHash(promptTemplateOf(s));
    const rows = await listSummaryRows(repo(), id);
    const store = preloadedStore(rows, async () => {});
    const failed = new Map<string, SummaryFailure>();
    for (const row of rows) {
      const f = rowToFailure(row);
      if (f) failed.set(f.id, f.failure);
    }
    const met = new Map<string, SummaryFailure>();
    const lookup = (key: SummaryKey): string | undefined => {
      const artifact = artifactKey(key.id, producer, tHash);
      const failure = failed.get(artifact);
      if (failure) {
        met.set(artifact, failure);
        return '';
      }
      return store.get(artifact)?.text;
    };
    return { lookup, met };
  }

  function withDraft(version: Version, draft: DraftStep | null | undefined): Step[] {
    return draft ? [...version.steps, { ...draft, createdAt: draft.createdAt ?? DRAFT_CREATED_AT }] : version.steps;
  }

  /**
   * The last projections of each log, by what they were projected with (the steps without their
   * dates, the baseline, the pins): the preview just shown is the one Apply checks, and the one of
   * the version Apply makes (the same steps). Only without stored summaries (offline settings):
   * those change as a summary run stores them.
   */
  const projections = new WeakMap<Transcript, Map<string, Projection>>();
  function remembered(log: Transcript, key: string | undefined, project: () => Projection): Projection {
    if (key === undefined) return project();
    let byKey = projections.get(log);
    if (!byKey) projections.set(log, (byKey = new Map()));
    let p = byKey.get(key);
    if (p) byKey.delete(key);
    else {
      p = project();
      projectionStats.projected++;
    }
    byKey.set(key, p);
    while (byKey.size > REMEMBERED_PROJECTIONS) byKey.delete(byKey.keys().next().value!);
    return p;
  }

  async function projectVersion(id: string, versionId: string, draft?: DraftStep | null, baseline?: 'log' | 'model-view'): Promise<{ log: Transcript; steps: Step[]; projection: Projection; version: Version }> {
    const log = await deps.getTranscript(id);
    const version = await versions.getVersion(repo(), id, versionId);
    const s = await settings();
    const steps = withFailurePolicy(withDraft(version, draft), s.onFailure);
    const stored = await summaryLookup(id, s);
    // The inspector's pins (issue 26): no step of any version touches them.
    const pins = await readPins(repo(), id);
    // A step's date is no input of its projection (a draft has none; Apply stamps it).
    const key = stored ? undefined : JSON.stringify([steps.map(({ createdAt: _, ...step }) => step), baseline ?? null, pins]);
    const projection = remembered(log, key, () => projectTranscript(log, steps, { ...(stored && { summaries: stored.lookup }), ...(baseline && { baseline }), ...(pins.length && { pins }) }));
    // The reducer only sees '' for a failed key; the reason (HTTP status, timeout, …) goes into its notes.
    return { log, steps, projection: stored ? annotateFailures(projection, [...stored.met.values()]) : projection, version };
  }

  /**
   * The compaction ledger's projections (lib/engine/ledger.ts) by the key the previews remember
   * theirs under (issue 31): after an Apply the ledger strip asked for the version's projection
   * again — the preview's, projected afresh on the preview worker ahead of the new version's
   * numbers. With a provider configured the ledger keeps its offline stand-ins, projected as before.
   */
  async function projectorFor(id: string): Promise<(steps: readonly Step[], baseline?: 'model-view') => Projection> {
    const log = await deps.getTranscript(id);
    const s = await settings();
    const pins = await readPins(repo(), id);
    const offline = !providerConfigOf(s);
    return (steps, baseline) => {
      const options = { ...(baseline && { baseline }), ...(pins.length && { pins }) };
      if (!offline) return projectTranscript(log, steps, options);
      const withPolicy = withFailurePolicy(steps, s.onFailure);
      const key = JSON.stringify([withPolicy.map(({ createdAt: _, ...step }) => step), baseline ?? null, pins]);
      return remembered(log, key, () => projectTranscript(log, withPolicy, options));
    };
  }

  /**
   * A saved version's projection for the export dialog (issue 31): its note (historyLeftOut), the
   * conversion's losses and the export itself project the same version, one after the other. The
   * last one is kept while the transcript, the version's steps and the pins are the same, and only
   * with offline summaries (stored LLM summaries can change between two calls).
   */
  let savedMemo: { log: Transcript; key: string; value: Awaited<ReturnType<typeof projectVersion>> } | undefined;
  async function projectSaved(id: string, versionId: string): Promise<Awaited<ReturnType<typeof projectVersion>>> {
    const log = await deps.getTranscript(id);
    const version = await versions.getVersion(repo(), id, versionId);
    const s = await settings();
    const offline = !providerConfigOf(s);
    const key = JSON.stringify([id, versionId, withFailurePolicy(version.steps, s.onFailure), await readPins(repo(), id)]);
    if (offline && savedMemo && savedMemo.log === log && savedMemo.key === key) return savedMemo.value;
    const value = await projectVersion(id, versionId);
    exportWork.projections++;
    savedMemo = offline && value.log === log ? { log, key, value } : undefined;
    return value;
  }

  async function preview(id: string, request: PreviewRequest): Promise<PreviewOutcome> {
    try {
      const t0 = performance.now();
      const { log, projection, version } = await projectVersion(id, request.versionId, request.draft);
      const t1 = performance.now();
      const p = summarizePreview(log, projection, request.selection ?? null, request.axis ?? 'turns');
      const timing = { projectMs: t1 - t0, summarizeMs: performance.now() - t1 };
      return transfer({ kind: 'preview' as const, preview: p, versionSteps: version.steps.length, timing }, [p.delta.buffer, p.saved.buffer]);
    } catch (e) {
      return { kind: 'error', error: serializeError(e) };
    }
  }

  /** How the stored original was encoded (UTF-8/16, BOM, gzip), read from its first bytes. */
  async function sourceEncoding(id: string): Promise<TextEncodingOf> {
    const original = await repo().getOriginal(id);
    return original ? sniffTextEncoding(original.bytes) : UTF8;
  }

  async function exportVersion(id: string, versionId: string, options: ExportOptions = {}): Promise<ExportVersionOutcome> {
    try {
      const { log, steps, projection: projected } = await projectSaved(id, versionId);
      // The recall file is named after the source (the export's own name is known only once written).
      const recallName = `${baseName(log.fileName)}.recall.jsonl`;
      const pointed = options.pointers && steps.length > 0 ? addPointers(log, projected, { recallPath: recallName }) : undefined;
      const projection = pointed?.projection ?? projected;
      const compacted = steps.length > 0 ? projection : undefined;
      const target = options.format ?? log.format;
      const format = formatById(target);
      if (!format) throw new ExportError('unsupported:target', `Unknown format "${target}".`);
      let text: string;
      let raw: Uint8Array | undefined;
      let fileName: string;
      let mimeType: string;
      let dropped: string[];
      let losses: ConversionLoss[] = [];
      if (target === log.format) {
        const out = serializeOnce(format, log, compacted);
        ({ text, fileName, mimeType, dropped } = out);
        raw = out.bytes;
      } else {
        // convertTranscript validates by re-import and pairing itself.
        const out = convertTranscript(log, target, compacted);
        ({ text, fileName, mimeType, dropped, losses } = out);
        raw = out.bytes;
      }
      // Formats name a compacted export themselves (serialize-util compactedFileName); add the mark only where one did not.
      if (compacted && target === log.format && !/\.compacted\./i.test(fileName)) fileName = fileName.replace(/(\.[^.]+(?:\.gz)?)$/i, '.compacted$1');
      // The source's own format is written in the source's encoding and BOM (a UTF-16 file stays UTF-16);
      // a conversion to another format is a new file, plain UTF-8 (lib/read/encode.ts).
      const bytes = encodeExport({ text, fileName, ...(raw && { bytes: raw }) }, target === log.format ? await sourceEncoding(id) : UTF8);

      // Validate: the file written imports back with its format, and compaction made no new pairing issue.
      let back: Transcript;
      try {
        // A container file (tau-bench) is written whole: read back the same conversation.
        const conversation = target === log.format ? (await repo().getMeta(id))?.conversation : undefined;
        back = importBytes(fileName, bytes, { format: target, ...(conversation !== undefined && { conversation }) }).transcript;
      } catch (e) {
        throw new ExportError('invalid:export', `The ${format.label} file written does not import back: ${userMessage(e)}`, { cause: e });
      }
      // Compared per source id and counted: the file read back numbers re-used ids afresh. Checked in
      // what the model is sent on resume (history kept before a compaction is never sent).
      const backMain = startingContext(back, 'model-view').messages.filter((m) => !m.sidechain);
      const fresh = newPairingIssues(validatePairing(log.messages.filter((m) => !m.sidechain)), validatePairing(backMain), { bySourceId: true }).filter((i) => isFatalForExport(i, backMain.length));
      if (fresh.length > 0) throw new ExportError('invalid:export', `The exported file has ${fresh.length} unpaired tool call(s)/result(s) (first: ${fresh[0].kind} ${fresh[0].callId}); nothing was downloaded.`);

      // What the model sees when the agent resumes the file (the file may keep history before a compaction).
      const reimported = modelViewTotals(back).total;
      const file: ExportedVersion = {
        bytes,
        ...blobOf(bytes, mimeOf(fileName, mimeType)),
        fileName,
        mimeType: mimeOf(fileName, mimeType),
        dropped,
        losses,
        format: target,
        tokens: { projected: projection.tokens.after.total, reimported, original: modelViewTotals(log).total },
      };
      const buffers: ArrayBuffer[] = [bytes.buffer as ArrayBuffer];
      if (pointed?.recall) {
        const recallBytes = new TextEncoder().encode(pointed.recall);
        file.recall = { bytes: recallBytes, fileName: recallName, ...blobOf(recallBytes, 'application/jsonl') };
        buffers.push(recallBytes.buffer as ArrayBuffer);
      }
      if (options.withAudit) {
        const lost = compacted ? lostIdentifiers(log, projection) : [];
        const budget = steps.find((s) => s.budget !== undefined)?.budget;
        const left = target === log.format ? historyLeftOut(log, compacted, !!format.keepsHistory, text) : undefined;
        const audit = buildAudit({ log, steps, projection, lost, ...(budget !== undefined && { budget }), output: { fileName, format: target, tokens: reimported, ...(target !== log.format && { notCarried: losses }), ...(left && left.messages > 0 && { leftOut: { messages: left.messages, tokens: left.tokens, summarized: left.summarized, removed: left.removed } }) } });
        const auditBytes = new TextEncoder().encode(JSON.stringify(audit, null, 2) + '\n');
        file.audit = { bytes: auditBytes, fileName: `${baseName(fileName)}.audit.json`, ...blobOf(auditBytes, 'application/json') };
        buffers.push(auditBytes.buffer as ArrayBuffer);
      }
      return transfer({ kind: 'file' as const, file }, buffers);
    } catch (e) {
      return { kind: 'error', error: serializeError(e) };
    }
  }

  async function compareVersions(id: string, a: string, b: string, model?: string): Promise<VersionComparison> {
    const log = await deps.getTranscript(id);
    const curveOf = async (versionId: string): Promise<VersionCurve> => {
      // Both in the model's view: the original's context is what the model last saw, not every line of the file.
      const { projection, version } = await projectVersion(id, versionId, null, 'model-view');
      const p = summarizePreview(log, projection, null);
      const K = p.kinds.length;
      const curve = new Float64Array(p.turns);
      for (let t = 0; t < p.turns; t++) for (let k = 0; k < K; k++) curve[t] += p.delta[t * K + k];
      return { versionId: version.id, name: version.name, steps: version.steps.length, curve, total: projection.tokens.after.total };
    };
    const ca = await curveOf(a);
    const cb = await curveOf(b);
    const info: ModelInfo | undefined = lookupModel(model ?? log.model);
    const price = (tokens: number, perMillion: number) => (tokens * perMillion) / 1_000_000;
    const out: VersionComparison = {
      a: ca,
      b: cb,
      delta: cb.total - ca.total,
      ...(info && {
        cost: {
          model: info.label,
          a: price(ca.total, info.price.input),
          b: price(cb.total, info.price.input),
          delta: price(cb.total - ca.total, info.price.input),
          cachedA: price(ca.total, info.price.cachedRead),
          cachedB: price(cb.total, info.price.cachedRead),
        },
      }),
    };
    return transfer(out, [ca.curve.buffer, cb.curve.buffer]);
  }

  /**
   * Produce the LLM summaries a version (plus draft) needs with the provider from Settings, oldest
   * first; artifacts are stored as they arrive, so a cancel keeps what was done. Offline settings
   * make no request (the offline summarizer already stands in inside every projection).
   */
  async function runSummaries(id: string, versionId: string, draft: DraftStep | null, onProgress?: (p: SummaryProgress) => void): Promise<SummaryRun> {
    const s = await settings();
    const cfg = providerConfigOf(s);
    if (!cfg) return { offline: true, provider: describeSettings(s), produced: 0, reused: 0, failures: [] };
    const log = await deps.getTranscript(id);
    const version = await versions.getVersion(repo(), id, versionId);
    const steps = withFailurePolicy(withDraft(version, draft), s.onFailure);
    const r = repo();
    const rows = await listSummaryRows(r, id);
    // A run asks again for every key that failed before: the old failures end here (a success
    // overwrites the row by id anyway; a key no longer needed must not keep its stale reason).
    const staleFailures = rows.flatMap((row) => rowToFailure(row)?.id ?? []);
    if (staleFailures.length) await r.db.summaries.bulkDelete(staleFailures);
    const store = preloadedStore(rows, async (stored) => {
      await r.putSummary(storedToRow(stored, id, log.messages.length ? Math.ceil(stored.text.length / 4) : 0, new Date().toISOString()));
    });
    const provider = createProvider(cfg);
    const template = promptTemplateOf(s);
    // The same pins as every preview: the spans summarized (and so the keys asked for) leave the pinned messages out.
    const pins = await readPins(r, id);
    const result = await fillSummaries((lookup) => projectTranscript(log, steps, { summaries: lookup, ...(pins.length && { pins }) }), {
      provider,
      native: nativeCompactor(cfg),
      template,
      style: s.style,
      store,
      ...(onProgress && { onProgress }),
    });
    await store.flush();
    // Failures are kept under the artifact's id, so the next preview falls back for them and says why.
    const tHash = templateHash(template);
    const now = new Date().toISOString();
    for (const f of result.failures) await r.putSummary(failureToRow(f, artifactKey(f.keyId, provider.id, tHash), id, provider.id, tHash, now));
    return { offline: false, provider: describeSettings(s), produced: result.produced.length, reused: result.reused, failures: result.failures };
  }

  /** The last run's failures still standing for this transcript (the Plan tab shows them until the next run). */
  async function summaryFailures(id: string): Promise<SummaryFailure[]> {
    return (await listSummaryRows(repo(), id)).flatMap((row) => rowToFailure(row)?.failure ?? []);
  }

  /**
   * classify-tangents' proposals for the Plan panel (RFD 036: it proposes, the user confirms): the
   * LLM of Settings when one is configured, else the offline heuristic (lib/compaction/tangents.ts).
   * A failed LLM call falls back to the heuristic and says why. The first prompt and the last
   * `keepLast` turns are never proposed.
   */
  async function classifyTangents(id: string, keepLast: number): Promise<TangentProposals> {
    const log = await deps.getTranscript(id);
    const last = log.turnCount - Math.max(0, keepLast);
    const s = await settings();
    const cfg = providerConfigOf(s);
    const heuristic = () => proposeTangents(log, { keepLast }).map((p) => ({ turn: p.turn, reason: p.reason }));
    if (!cfg) return { by: 'heuristic', proposals: heuristic() };
    try {
      const span = log.messages.filter((m) => !m.sidechain && m.turn < last);
      const r = await classifyTangentsWithProvider({ messages: span }, createProvider(cfg));
      const proposals = r.tangents.filter((t) => t.turn > 0 && t.turn < last).map((t) => ({ turn: t.turn, reason: t.reason }));
      return { by: 'llm', provider: describeSettings(s), proposals };
    } catch (e) {
      return { by: 'heuristic', proposals: heuristic(), error: `${describeSettings(s)}: ${e instanceof Error ? e.message : String(e)} — the offline heuristic's proposals instead` };
    }
  }

  return {
    projectorFor,
    classifyTangents,
    async listVersions(id: string): Promise<Version[]> {
      return versions.listVersions(repo(), id);
    },
    async forkVersion(id: string, parentId: string, name?: string): Promise<Version> {
      return versions.forkVersion(repo(), id, parentId, name);
    },
    async renameVersion(id: string, versionId: string, name: string): Promise<Version> {
      return versions.renameVersion(repo(), id, versionId, name);
    },
    async removeVersion(id: string, versionId: string): Promise<void> {
      await versions.deleteVersion(repo(), id, versionId);
    },
    async applyStep(id: string, versionId: string, step: DraftStep): Promise<Version> {
      // A step that changes nothing (a "0 %" preview) is not a version's step: applying it on the
      // original would fork an empty "Compacted N".
      const before = await projectVersion(id, versionId);
      const after = await projectVersion(id, versionId, step);
      if (!changesAnything(before.projection, after.projection))
        throw new versions.VersionError('invalid:version', `This step changes nothing (0 tokens saved, no message changed): nothing was applied. Select other turns, lower keep-last or pick other reducers.`);
      return versions.applyStep(repo(), id, versionId, step);
    },
    async undoStep(id: string, versionId: string): Promise<Version> {
      return versions.undoStep(repo(), id, versionId);
    },
    preview,
    /**
     * What every preview of this log needs and no plan changes, built before the first preview asks
     * (issue 31): the log read back in this worker, the lost-identifier index, the starting context
     * and the model calls. The inspector asks for it on the preview lane once the page is up, one
     * part at a time (`part` 0 … 3, lib/engine/client.ts WARM_PREVIEW_PARTS; none: every part): a request the user makes
     * meanwhile (the overlay's tick) is answered after the part running, not after the whole warm-up
     * (session 18: at 2,000 turns the parts after the read are ~0.5 s of CPU).
     */
    async warmPreview(id: string, part?: number): Promise<void> {
      const t0 = performance.now();
      const log = await deps.getTranscript(id);
      const t1 = performance.now();
      prepareForPreview(log, part);
      // A DevTools trace shows the warm-up's parts on the worker's thread (bench/profile-app-trace.ts prints them).
      const name = `cs-warm-preview ${part ?? 'all'}`;
      performance.measure(`${name} (log)`, { start: t0, end: t1 });
      performance.measure(name, { start: t1, end: performance.now() });
      performance.clearMeasures(name);
      performance.clearMeasures(`${name} (log)`);
    },
    exportVersion,
    compareVersions,
    runSummaries,
    summaryFailures,
    async summarySettings(): Promise<{ offline: boolean; description: string; onFailure: SummarySettings['onFailure']; nativeUnavailable?: string }> {
      const s = await settings();
      const why = nativeUnavailable(s.provider === 'offline' ? undefined : s.provider);
      return { offline: s.provider === 'offline', description: describeSettings(s), onFailure: s.onFailure, ...(why && { nativeUnavailable: why }) };
    },
    async toolStats(id: string): Promise<ToolStat[]> {
      return toolStats(await deps.getTranscript(id));
    },
    /** Where each peer's auto-compaction would fire on this transcript, for the model given. */
    async peerTriggers(id: string, model?: string): Promise<TriggerPoint[]> {
      return triggersFor(await deps.getTranscript(id), model);
    },
    async parseConfig(fileName: string, text: string): Promise<ConfigOutcome> {
      try {
        return { kind: 'plan', plan: parseCompactionConfig(fileName, text) };
      } catch (e) {
        if (e instanceof ConfigError) return { kind: 'error', error: { name: e.name, code: e.code, message: e.message, where: { file: fileName, path: e.path }, ...(e.expected && { expected: e.expected }) } };
        return { kind: 'error', error: serializeError(e) };
      }
    },
    /**
     * What converting this version to `format` cannot carry, before anything is downloaded (the
     * export dialog lists it): the conversion is run and validated, its bytes are not returned.
     */
    async conversionLosses(id: string, versionId: string, format: string): Promise<ConversionLossesOutcome> {
      try {
        const { log, steps, projection } = await projectSaved(id, versionId);
        if (format === log.format) return { kind: 'losses' as const, losses: [], tokens: { before: projection.tokens.after.total, after: projection.tokens.after.total } };
        const out = convertTranscript(log, format, steps.length > 0 ? projection : undefined);
        return { kind: 'losses' as const, losses: out.losses, tokens: out.tokens };
      } catch (e) {
        return { kind: 'error' as const, error: serializeError(e) };
      }
    },
    /** What a compacted export in the source's own format leaves out of the file (the export dialog says it before the download). */
    async historyLeftOut(id: string, versionId: string): Promise<HistoryLeftOut> {
      const { log, steps, projection } = await projectSaved(id, versionId);
      const format = formatById(log.format);
      const compacted = steps.length > 0 ? projection : undefined;
      // Where the format keeps history, what stays in the file is read from the file it writes (the export then writes it again from here).
      const text = compacted && format?.keepsHistory ? serializeOnce(format, log, compacted).text : undefined;
      return historyLeftOut(log, compacted, !!format?.keepsHistory, text);
    },
    async exportTargets(id: string): Promise<Array<{ id: string; label: string; source: boolean }>> {
      const meta = await repo().getMeta(id);
      const source = meta ? formatById(meta.format) : undefined;
      const list = conversionTargets().filter((t) => t.id !== source?.id);
      return [...(source ? [{ id: source.id, label: source.label, source: true }] : []), ...list.map((t) => ({ ...t, source: false }))];
    },
  };
}
