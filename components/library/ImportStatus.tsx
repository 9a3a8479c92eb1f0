'use client';

import { describeWhere } from '@/lib/errors';
import type { ImportFailure, ImportInProgress } from './useImport';
import { Button } from '../ui/Button';

const STAGE_LABEL: Record<ImportInProgress['stage'], string> = {
  reading: 'Reading',
  parsing: 'Parsing',
  counting: 'Counting tokens',
  storing: 'Storing',
  done: 'Done',
};
const STAGE_BASE: Record<ImportInProgress['stage'], number> = { reading: 0, parsing: 0.1, counting: 0.75, storing: 0.85, done: 1 };
const STAGE_SPAN: Record<ImportInProgress['stage'], number> = { reading: 0.1, parsing: 0.65, counting: 0.1, storing: 0.15, done: 0 };

/** Overall fraction: each stage owns a slice of the bar, so it only ever moves forward. */
function overall(p: ImportInProgress): number {
  const within = STAGE_BASE[p.stage] + STAGE_SPAN[p.stage] * (p.fraction ?? 0);
  if (!p.batch) return within;
  return (p.batch.done + within) / p.batch.total;
}

export function ImportProgressBar({ progress, onCancel }: { progress: ImportInProgress | null; onCancel: () => void }) {
  return (
    <div aria-live="polite" className="min-h-0">
      {progress && (
        <div data-testid="import-progress" data-stage={progress.stage} className="flex items-center gap-3 rounded-lg border border-neutral-200 px-4 py-3 dark:border-neutral-800">
          <div className="min-w-0 flex-1">
            <div className="flex items-baseline justify-between gap-2 text-sm">
              <span className="truncate">
                <span className="font-medium">{STAGE_LABEL[progress.stage]}</span> {progress.name}
                {progress.batch && (
                  <span className="text-neutral-500">
                    {' '}
                    · conversation {progress.batch.done + 1} of {progress.batch.total}
                  </span>
                )}
              </span>
              <span className="tabular-nums text-neutral-500">{Math.round(overall(progress) * 100)} %</span>
            </div>
            <div
              role="progressbar"
              aria-label={`Import progress: ${STAGE_LABEL[progress.stage]}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(overall(progress) * 100)}
              className="mt-1.5 h-1.5 overflow-hidden rounded bg-neutral-200 dark:bg-neutral-800"
            >
              <div className="h-full bg-blue-600 transition-[width] duration-150" style={{ width: `${overall(progress) * 100}%` }} />
            </div>
          </div>
          <Button onClick={onCancel} data-testid="import-cancel">
            Cancel
          </Button>
        </div>
      )}
    </div>
  );
}

/** Import errors stay until dismissed: file, line or field, what went wrong, what was expected. */
export function ImportErrors({ failures, onDismiss }: { failures: ImportFailure[]; onDismiss: (key: string) => void }) {
  if (failures.length === 0) return null;
  return (
    <ul className="space-y-2" aria-label="Import errors">
      {failures.map((f) => {
        const where = describeWhere({ ...f.error.where, file: undefined });
        return (
          <li
            key={f.key}
            role="alert"
            data-testid="import-error"
            data-code={f.error.code}
            className="flex items-start gap-3 rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm dark:border-red-900 dark:bg-red-950/40"
          >
            <span aria-hidden="true" className="mt-0.5 text-red-600">
              ⚠
            </span>
            <div className="min-w-0 flex-1">
              <p className="font-medium text-red-800 dark:text-red-300">
                Could not import <span className="font-mono">{f.fileName}</span>
                {where && <span className="font-normal"> — {where}</span>}
              </p>
              <p className="mt-0.5 text-red-900 dark:text-red-200">{f.error.message}</p>
              {f.error.expected && <p className="mt-0.5 text-red-800/80 dark:text-red-300/80">Expected {f.error.expected}.</p>}
              <p className="mt-1 font-mono text-xs text-red-700/70 dark:text-red-400/70">{f.error.code}</p>
            </div>
            <Button variant="ghost" onClick={() => onDismiss(f.key)} aria-label={`Dismiss the error about ${f.fileName}`} data-testid="import-error-dismiss">
              ✕
            </Button>
          </li>
        );
      })}
    </ul>
  );
}
