'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Version } from '@/lib/compaction/types';
import { getBridge } from '@/lib/engine/client';
import type { ExportedVersion } from '@/lib/engine/compaction';
import { ORIGINAL_VERSION } from '@/lib/engine/versions';
import { userMessage } from '@/lib/errors';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { downloadBytes } from '../ui/download';
import { formatTokens, signedPercent } from '../ui/format';
import { ConversionLosses } from './ConversionLosses';
import { HistoryLeftOut } from './HistoryLeftOut';
import { ResumePanel } from './ResumePanel';

/**
 * Export: a format (the source's by default, or any format it converts to), the compacted version
 * or the original, and the audit record. The engine validates the file by importing it back
 * before anything is downloaded; errors stay in the dialog.
 */
export function ExportDialog({ id, open, onClose, versions, versionId }: { id: string; open: boolean; onClose: () => void; versions: Version[]; versionId: string }) {
  const targets = useQuery({ queryKey: ['export-targets', id], queryFn: ({ signal }) => getBridge().exportTargets(signal, id), enabled: open, staleTime: Infinity });
  const [format, setFormat] = useState('');
  const [which, setWhich] = useState(versionId);
  const [withAudit, setWithAudit] = useState(true);
  const [withPointers, setWithPointers] = useState(false);
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'working' } | { kind: 'done'; file: ExportedVersion } | { kind: 'error'; message: string }>({ kind: 'idle' });
  // Opening starts afresh; the shown version changing while the dialog is open (the version list
  // arriving after an Apply) moves the choice, but never wipes an export in flight or its result.
  useEffect(() => {
    if (open) setState({ kind: 'idle' });
  }, [open]);
  useEffect(() => {
    if (open) setWhich(versionId);
  }, [open, versionId]);
  const source = targets.data?.find((t) => t.source);
  const chosenFormat = format || source?.id || '';
  const compacted = which !== ORIGINAL_VERSION;
  // The note said before the download (what the file will not hold, what a conversion cannot carry)
  // is measured first: Download waits for it, so the note never arrives after the click (the same
  // queries as HistoryLeftOut / ConversionLosses: react-query runs each once).
  const converting = !!chosenFormat && !!source && chosenFormat !== source.id;
  const leftOut = useQuery({ queryKey: ['history-left-out', id, which], queryFn: ({ signal }) => getBridge().historyLeftOut(signal, id, which), staleTime: Infinity, enabled: open && compacted && !converting && !!source });
  const losses = useQuery({ queryKey: ['conversion-losses', id, which, chosenFormat], queryFn: ({ signal }) => getBridge().conversionLosses(signal, id, which, chosenFormat), staleTime: Infinity, enabled: open && converting });
  const noteReady = converting ? !losses.isPending : !compacted || !leftOut.isPending;

  const run = async () => {
    setState({ kind: 'working' });
    try {
      const out = await getBridge().exportVersion(undefined, id, which, { format: chosenFormat || undefined, withAudit: withAudit && compacted, pointers: withPointers && compacted });
      if (out.kind === 'error') {
        setState({ kind: 'error', message: userMessage(out.error) });
        return;
      }
      downloadBytes(out.file.blob ?? out.file.bytes, out.file.fileName, out.file.mimeType);
      if (out.file.audit) downloadBytes(out.file.audit.blob ?? out.file.audit.bytes, out.file.audit.fileName, 'application/json');
      if (out.file.recall) downloadBytes(out.file.recall.blob ?? out.file.recall.bytes, out.file.recall.fileName, 'application/jsonl');
      setState({ kind: 'done', file: out.file });
    } catch (e) {
      setState({ kind: 'error', message: userMessage(e) });
    }
  };

  return (
    <Dialog open={open} onClose={onClose} title="Export" testId="export-dialog">
      <div className="space-y-4 overflow-y-auto px-5 py-4 text-sm">
        <label className="block">
          <span className="text-xs font-medium text-neutral-600 dark:text-neutral-400">Format</span>
          <select value={chosenFormat} onChange={(e) => setFormat(e.target.value)} className="mt-1 block w-full rounded-md border border-neutral-300 bg-white px-2 py-1.5 dark:border-neutral-700 dark:bg-neutral-900" aria-label="Format" data-testid="export-format">
            {targets.data?.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
                {t.source ? ' (source format)' : ' (conversion)'}
              </option>
            ))}
          </select>
        </label>
        <label className="block">
          <span className="text-xs font-medium text-neutral-600 dark:text-neutral-400">Version</span>
          <select value={which} onChange={(e) => setWhich(e.target.value)} className="mt-1 block w-full rounded-md border border-neutral-300 bg-white px-2 py-1.5 dark:border-neutral-700 dark:bg-neutral-900" aria-label="Version" data-testid="export-version">
            {versions.map((v) => (
              <option key={v.id} value={v.id}>
                {v.id === ORIGINAL_VERSION ? 'Original (as imported)' : `${v.name} — ${v.steps.length} step${v.steps.length === 1 ? '' : 's'}`}
              </option>
            ))}
          </select>
        </label>
        <label className={`flex items-center gap-2 ${compacted ? '' : 'opacity-50'}`}>
          <input type="checkbox" checked={withAudit && compacted} disabled={!compacted} onChange={(e) => setWithAudit(e.target.checked)} data-testid="export-audit" />
          include audit record <span className="text-xs text-neutral-500">(steps, fates, tokens, lost identifiers; a .audit.json beside the file)</span>
        </label>
        <label className={`flex items-center gap-2 ${compacted ? '' : 'opacity-50'}`}>
          <input type="checkbox" checked={withPointers && compacted} disabled={!compacted} onChange={(e) => setWithPointers(e.target.checked)} data-testid="export-pointers" />
          pointers to the full text <span className="text-xs text-neutral-500">(each stub and summary names a line of a .recall.jsonl downloaded beside the file, so a resumed agent can read it back)</span>
        </label>
        {chosenFormat && source && chosenFormat !== source.id ? (
          // A conversion writes every message anew: say what the target cannot carry, before the download.
          <ConversionLosses id={id} versionId={which} format={chosenFormat} formatLabel={targets.data?.find((t) => t.id === chosenFormat)?.label ?? chosenFormat} />
        ) : compacted ? (
          <HistoryLeftOut id={id} versionId={which} formatLabel={source?.label ?? ''} />
        ) : (
          <p className="text-xs text-neutral-500">The original in its own format is the exact bytes you imported.</p>
        )}
        {state.kind === 'error' && (
          <div role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300" data-testid="export-error">
            <p className="font-semibold">Nothing was downloaded.</p>
            <p>{state.message}</p>
          </div>
        )}
        {state.kind === 'done' && (
          <div role="status" className="rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-200" data-testid="export-done">
            <p>
              <span className="font-semibold">{state.file.fileName}</span> · {formatTokens(state.file.tokens.reimported)} tokens the model sees on resume (was {formatTokens(state.file.tokens.original)}, {signedPercent(state.file.tokens.reimported, state.file.tokens.original)})
              {state.file.audit && <> · {state.file.audit.fileName}</>}
              {state.file.recall && <> · {state.file.recall.fileName}</>}
            </p>
            {state.file.dropped.length > 0 && (
              <ul className="mt-1 list-disc pl-4 text-xs">
                {state.file.dropped.slice(0, 8).map((d) => (
                  <li key={d}>{d}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {chosenFormat && <ResumePanel id={id} format={chosenFormat} sourceFormat={source?.id} version={versions.find((v) => v.id === which)} />}
      </div>
      <div className="flex justify-end gap-2 border-t border-neutral-200 px-5 py-3 dark:border-neutral-800">
        <Button onClick={onClose}>Close</Button>
        <Button variant="primary" onClick={() => void run()} disabled={state.kind === 'working' || !chosenFormat || !noteReady} aria-busy={!noteReady || state.kind === 'working'} data-testid="export-download">
          {state.kind === 'working' ? 'Validating…' : !noteReady ? 'Checking…' : 'Download'}
        </Button>
      </div>
    </Dialog>
  );
}
