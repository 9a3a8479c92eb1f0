/**
 * The inspector's compaction ledger and pins, and the library's census (worker side; issue 26).
 * Pure over lib/ (runs in Node tests as is); api.ts spreads these into the `engine` object.
 *
 * The ledger of a version: the agent's own compactions (markers) and each step of the version,
 * projected with the transcript's pins and the offline summarizer's stand-ins where no summary is
 * stored (a provider's stored summaries are not looked up here: the tokens of a step that a
 * provider summarized are those of the offline stand-in).
 */
import type { Pin } from '../compaction/pins';
import { PinError, patternMatcher } from '../compaction/pins';
import { projectTranscript } from '../compaction/project';
import type { Projection, Step } from '../compaction/types';
import type { Repo } from '../db/repo';
import type { SessionEntry } from '../sessions/contract';
import type { Transcript } from '../model/types';
import { ledgerOf } from '../ledger';
import { agentEvents } from '../ledger/agent';
import { ledgerChecks } from '../ledger/checks';
import { censusInputOf, censusTally, runCensus, type Census, type CensusProgress } from '../ledger/census';
import type { LedgerEvent } from '../ledger/types';
import * as versions from './versions';

/**
 * A session file the local server stops sending (no response, or no bytes) for this long is skipped
 * with that reason, and the census goes on: it is under the bridge's CENSUS_STALL_MS (60 s), which
 * would otherwise end the whole census at that file. Tests shorten it.
 */
export const censusFileStall = { ms: 20_000 };

export interface LedgerDeps {
  repo: () => Repo;
  getTranscript: (id: string) => Promise<Transcript>;
  /** The compaction engine's projections, shared with the previews (lib/engine/compaction.ts projectorFor). */
  projectorFor?: (id: string) => Promise<(steps: readonly Step[], baseline?: 'model-view') => Projection>;
}

export interface LedgerView {
  events: LedgerEvent[];
  pins: Pin[];
}

export type PinsOutcome = { ok: true } | { ok: false; error: string };

export const pinsKey = (id: string) => `pins:${id}`;

/** A transcript's pins as stored (a list the inspector edits). */
export async function readPins(repo: Repo, id: string): Promise<Pin[]> {
  const v = await repo.getSetting<Pin[]>(pinsKey(id));
  return Array.isArray(v) ? v : [];
}

export function ledgerEngine(deps: LedgerDeps) {
  const repo = () => deps.repo();
  return {
    /** Every compaction of this version: the agent's own, then each of its steps, with survival and lost pins. */
    async compactionLedger(id: string, versionId?: string | null): Promise<LedgerView> {
      const log = await deps.getTranscript(id);
      const version = await versions.getVersion(repo(), id, versionId);
      const pins = await readPins(repo(), id);
      const shared = deps.projectorFor ? await deps.projectorFor(id) : undefined;
      const project = (steps: readonly Step[]) => (shared ? shared(steps, steps.length === 0 ? 'model-view' : undefined) : projectTranscript(log, steps, steps.length === 0 ? { baseline: 'model-view', pins } : { pins }));
      const { events } = ledgerOf(log, { steps: version.steps, versionId: version.id, project, ...ledgerChecks(pins) });
      return { events, pins };
    },
    async getPins(id: string): Promise<Pin[]> {
      return readPins(repo(), id);
    },
    /** Replace the pins (a pattern that does not compile is refused with its reason). */
    async setPins(id: string, pins: Pin[]): Promise<PinsOutcome> {
      for (const p of pins)
        if (p.kind === 'pattern')
          try {
            patternMatcher(p.pattern);
          } catch (e) {
            return { ok: false, error: e instanceof PinError ? e.message : String(e) };
          }
      await repo().putSetting(pinsKey(id), pins);
      return { ok: true };
    },
    /**
     * The census of the library's imported transcripts: every stored transcript, its agent's
     * compactions (lib/ledger/census.ts). Those with markers are read one at a time; a progress report per transcript.
     */
    async libraryCensus(onProgress?: (p: CensusProgress) => void): Promise<Census> {
      const metas = await repo().listTranscripts();
      const checks = ledgerChecks();
      const inputs = [];
      // Stored transcripts are parsed already: those with markers give their events (one at a time), the others count by their format.
      let parsed = 0;
      for (const [i, m] of metas.entries()) {
        if (m.markers > 0) parsed++;
        const events = m.markers > 0 ? agentEvents(await deps.getTranscript(m.id), checks) : [];
        inputs.push({ path: m.title || m.fileName, format: m.format, read: () => new Uint8Array(0), events });
        onProgress?.({ done: i + 1, total: metas.length, parsed, path: m.title || m.fileName });
      }
      return runCensus(inputs);
    },
    /**
     * The census of "Your sessions": the files the local server lists, each fetched from its API
     * (GET /api/session, the tab's secret) one at a time — the next one's bytes come while this one
     * is counted — and counted as `contextscope census` counts the same files (one tally, censusInputOf).
     * A file the API refuses is skipped with its status. Runs in the worker; a progress report per session.
     */
    async sessionsCensus(sessions: readonly SessionRef[], api: { origin: string; token: string }, onProgress?: (p: CensusProgress) => void): Promise<Census> {
      const tally = censusTally();
      const fetchBytes = async (path: string): Promise<{ bytes: Uint8Array } | { error: string }> => {
        // Aborted when the server sends nothing (headers, then bytes) for censusFileStall.ms.
        const stallMs = censusFileStall.ms;
        const stop = new AbortController();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const alive = () => {
          clearTimeout(timer);
          const armed = performance.now();
          timer = setTimeout(() => {
            // Late by more than a second: this thread was busy (counting the file before this one,
            // fetched ahead), not the server silent; its bytes may be waiting. Another full wait.
            if (performance.now() - armed > stallMs + 1000) alive();
            else stop.abort();
          }, stallMs);
        };
        const get = () => fetch(new URL(`/api/session?path=${encodeURIComponent(path)}&offset=0`, api.origin), { headers: { Authorization: `Bearer ${api.token}` }, cache: 'no-store', signal: stop.signal });
        try {
          alive();
          // A GET is asked once more after a network error (a kept-alive connection the server had just closed).
          const res = await get().catch((e) => {
            if (stop.signal.aborted) throw e;
            return get();
          });
          alive();
          if (!res.ok) {
            let reason = `${res.status} ${res.statusText}`;
            try {
              const body = (await res.json()) as { error?: unknown };
              if (typeof body.error === 'string') reason = `${res.status}: ${body.error}`;
            } catch {
              /* not JSON: the status says it */
            }
            return { error: `the local server refused it (${reason})` };
          }
          if (!res.body) return { bytes: new Uint8Array(await res.arrayBuffer()) };
          const reader = res.body.getReader();
          const parts: Uint8Array[] = [];
          let size = 0;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            alive();
            parts.push(value);
            size += value.length;
          }
          if (parts.length === 1) return { bytes: parts[0] };
          const bytes = new Uint8Array(size);
          let at = 0;
          for (const part of parts) {
            bytes.set(part, at);
            at += part.length;
          }
          return { bytes };
        } catch (e) {
          if (stop.signal.aborted) return { error: `the local server sent nothing for ${Math.round(stallMs / 1000)} s` };
          return { error: `could not be read from the local server (${e instanceof Error ? e.message : String(e)})` };
        } finally {
          clearTimeout(timer);
        }
      };
      let next = sessions.length ? fetchBytes(sessions[0].path) : null;
      for (let i = 0; i < sessions.length; i++) {
        const got = await next!;
        next = i + 1 < sessions.length ? fetchBytes(sessions[i + 1].path) : null;
        tally.add(censusInputOf(sessions[i]), () => {
          if ('error' in got) throw new Error(got.error);
          return got.bytes;
        });
        onProgress?.({ done: i + 1, total: sessions.length, parsed: tally.parsed, path: sessions[i].path });
      }
      return tally.result();
    },
  };
}

/** What the census needs of a listed session (lib/sessions/contract.ts SessionEntry). */
export type SessionRef = Pick<SessionEntry, 'path' | 'agent' | 'format'>;
