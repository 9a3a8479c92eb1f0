/**
 * Summary artifact rows of one transcript (the `summaries` table, lib/db/schema.ts). Read in one
 * go: the projection is synchronous, so the engine preloads them into a SummaryStore.
 */
import type { Repo } from './repo';
import type { SummaryRow } from './schema';

export async function listSummaryRows(repo: Repo, transcriptId: string): Promise<SummaryRow[]> {
  return repo.db.summaries.where('transcriptId').equals(transcriptId).toArray();
}
