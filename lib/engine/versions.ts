/**
 * Versions of a transcript (DESIGN.md "the one rule"): the log is never edited; a version is a
 * named list of steps, and every view of it is `projectTranscript(log, version.steps)`.
 *
 * The original is a virtual version (id ORIGINAL_VERSION, no steps) that is never stored, so it
 * can be neither renamed nor deleted, and applying a step to it forks a new stored version: the
 * user can always get back to the file as imported.
 */
import type { Step, Version } from '../compaction/types';
import type { Repo } from '../db/repo';

export const ORIGINAL_VERSION = 'original';

export class VersionError extends Error {
  constructor(
    readonly code: 'missing:version' | 'invalid:version',
    message: string,
  ) {
    super(message);
    this.name = 'VersionError';
  }
}

export function originalVersion(transcriptId: string, createdAt = new Date(0).toISOString()): Version {
  return { id: ORIGINAL_VERSION, transcriptId, name: 'Original', steps: [], createdAt, updatedAt: createdAt };
}

function newId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The original first, then the stored versions oldest first. */
export async function listVersions(repo: Repo, transcriptId: string): Promise<Version[]> {
  return [originalVersion(transcriptId), ...(await repo.listVersions(transcriptId))];
}

/** A version of this transcript (the original included), or a VersionError. */
export async function getVersion(repo: Repo, transcriptId: string, versionId: string | undefined | null): Promise<Version> {
  if (!versionId || versionId === ORIGINAL_VERSION) return originalVersion(transcriptId);
  const v = await repo.getVersion(versionId);
  if (!v || v.transcriptId !== transcriptId) throw new VersionError('missing:version', `Version ${versionId} does not exist for this transcript (it may have been deleted).`);
  return v;
}

/** A name not yet used by this transcript's versions: "Compacted 1", "Compacted 2", … */
async function freshName(repo: Repo, transcriptId: string, base: string): Promise<string> {
  const used = new Set((await repo.listVersions(transcriptId)).map((v) => v.name));
  for (let i = 1; ; i++) if (!used.has(`${base} ${i}`)) return `${base} ${i}`;
}

/** Fork: a new stored version with the parent's steps (copied: the two evolve separately). */
export async function forkVersion(repo: Repo, transcriptId: string, parentId: string, name?: string): Promise<Version> {
  const parent = await getVersion(repo, transcriptId, parentId);
  const now = new Date().toISOString();
  const version: Version = {
    id: newId('v'),
    transcriptId,
    name: name?.trim() ? name.trim().slice(0, 200) : await freshName(repo, transcriptId, parent.id === ORIGINAL_VERSION ? 'Compacted' : `${parent.name} fork`),
    ...(parent.id !== ORIGINAL_VERSION && { parentId: parent.id }),
    steps: parent.steps.map((s) => ({ ...s })),
    createdAt: now,
    updatedAt: now,
  };
  await repo.putVersion(version);
  return version;
}

export async function renameVersion(repo: Repo, transcriptId: string, versionId: string, name: string): Promise<Version> {
  const v = await getVersion(repo, transcriptId, versionId);
  if (v.id === ORIGINAL_VERSION) throw new VersionError('invalid:version', 'The original cannot be renamed: fork it first.');
  const clean = name.trim();
  if (!clean) throw new VersionError('invalid:version', 'A version needs a name.');
  const { autoForked: _named, ...rest } = v;
  const next = { ...rest, name: clean.slice(0, 200), updatedAt: new Date().toISOString() };
  await repo.putVersion(next);
  return next;
}

export async function deleteVersion(repo: Repo, transcriptId: string, versionId: string): Promise<void> {
  const v = await getVersion(repo, transcriptId, versionId);
  if (v.id === ORIGINAL_VERSION) throw new VersionError('invalid:version', 'The original cannot be deleted.');
  await repo.deleteVersion(v.id);
}

/**
 * Append a step. On the original this forks a new version first (the original stays as imported),
 * so the caller must use the returned version's id from then on.
 */
export async function applyStep(repo: Repo, transcriptId: string, versionId: string, step: Omit<Step, 'id' | 'createdAt'> & Partial<Pick<Step, 'id' | 'createdAt'>>): Promise<Version> {
  let v = await getVersion(repo, transcriptId, versionId);
  if (v.id === ORIGINAL_VERSION) v = { ...(await forkVersion(repo, transcriptId, ORIGINAL_VERSION)), autoForked: true };
  const now = new Date().toISOString();
  const full: Step = { ...step, id: step.id && !v.steps.some((s) => s.id === step.id) ? step.id : newId('s'), createdAt: step.createdAt ?? now };
  const next: Version = { ...v, steps: [...v.steps, full], updatedAt: now };
  await repo.putVersion(next);
  return next;
}

/**
 * Remove the last step (undo). The version stays, possibly with no steps — except one that an Apply
 * forked from the original: emptied, it is the original again, so it is removed and the original
 * returned (an Apply + Undo leaves no empty "Compacted N" behind). Callers show the returned version.
 */
export async function undoStep(repo: Repo, transcriptId: string, versionId: string): Promise<Version> {
  const v = await getVersion(repo, transcriptId, versionId);
  if (v.steps.length === 0) throw new VersionError('invalid:version', `${v.name} has no step to undo.`);
  if (v.steps.length === 1 && v.autoForked) {
    await repo.deleteVersion(v.id);
    return getVersion(repo, transcriptId, ORIGINAL_VERSION);
  }
  const next: Version = { ...v, steps: v.steps.slice(0, -1), updatedAt: new Date().toISOString() };
  await repo.putVersion(next);
  return next;
}
