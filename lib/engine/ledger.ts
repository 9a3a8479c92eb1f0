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
import type { Step } from '../compaction/types';
import type { Repo } from '../db/repo';
import type { Transcript } from '../model/types';
import { ledgerOf } from '../ledger';
import { agentEvents } from '../ledger/agent';
import { ledgerChecks } from '../ledger/checks';
import { runCensus, type Census } from '../ledger/census';
import type { LedgerEvent } from '../ledger/types';
import * as versions from './versions';

export interface LedgerDeps {
  repo: () => Repo;
  getTranscript: (id: string) => Promise<Transcript>;
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
      const project = (steps: readonly Step[]) => projectTranscript(log, steps, steps.length === 0 ? { baseline: 'model-view', pins } : { pins });
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
    /** The census of the library: every stored transcript, its agent's compactions (lib/ledger/census.ts). */
    async libraryCensus(): Promise<Census> {
      const metas = await repo().listTranscripts();
      const checks = ledgerChecks();
      const inputs = [];
      // Stored transcripts are parsed already: those with markers give their events (one at a time), the others count by their format.
      for (const m of metas) {
        const events = m.markers > 0 ? agentEvents(await deps.getTranscript(m.id), checks) : [];
        inputs.push({ path: m.title || m.fileName, format: m.format, read: () => new Uint8Array(0), events });
      }
      return runCensus(inputs);
    },
  };
}
