'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Version } from '@/lib/compaction/types';
import { getBridge } from '@/lib/engine/client';
import { ORIGINAL_VERSION } from '@/lib/engine/versions';
import { userMessage } from '@/lib/errors';
import type { ResumeAgent, ResumeResult } from '@/lib/sessions/contract';
import { probeApi, resumeSession } from '../sessions/api';
import { liveLinkOf } from '../sessions/live';
import { AGENT_LABEL } from '../sessions/tree';
import { Button } from '../ui/Button';
import { stepLabel } from '../versions/VersionsTab';

/** The export formats an agent resumes, and the agent's id in `resume`. */
export const RESUME_AGENT: Record<string, ResumeAgent> = {
  'claude-code': 'claude-code',
  'codex-cli': 'codex-cli',
  'gemini-cli': 'gemini-cli',
};

/** Text of an export: UTF-8, or UTF-16 where the source was (its byte-order mark says so). */
function decodeExport(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}

/**
 * "Resume as a new session": the chosen version in the agent's own format, written by the local
 * API into that agent's store as a new session (a new id; the original is never touched), and
 * the one command that resumes it. Without the API: the CLI command that does the same.
 */
export function ResumePanel({ id, format, sourceFormat, version }: { id: string; format: string; sourceFormat?: string; version: Version | undefined }) {
  const agent = RESUME_AGENT[format];
  const health = useQuery({ queryKey: ['api-health'], queryFn: ({ signal }) => probeApi(signal), retry: false, staleTime: Infinity });
  const link = liveLinkOf(id);
  const [cwd, setCwd] = useState(link?.cwd ?? '');
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'working' } | { kind: 'done'; result: ResumeResult } | { kind: 'error'; message: string }>({ kind: 'idle' });
  const [copied, setCopied] = useState(false);
  const doneBox = useRef<HTMLDivElement>(null);
  // The dialog scrolls: bring the path and the command into view once written.
  useEffect(() => {
    if (state.kind === 'done') doneBox.current?.scrollIntoView({ block: 'nearest' });
  }, [state.kind]);
  const versionId = version?.id ?? ORIGINAL_VERSION;
  useEffect(() => {
    setState({ kind: 'idle' });
    setCopied(false);
  }, [versionId, format]);
  if (!agent) {
    // A conversion is no agent's session: say where resuming is.
    const sourceAgent = sourceFormat ? RESUME_AGENT[sourceFormat] : undefined;
    return sourceAgent ? (
      <p className="text-xs text-neutral-500" data-testid="resume-elsewhere">
        To resume this in {AGENT_LABEL[sourceAgent]} as a new session, choose its own format ({AGENT_LABEL[sourceAgent]}) above.
      </p>
    ) : null;
  }
  const label = AGENT_LABEL[agent];
  const flag = `--agent ${agent}`;

  const run = async () => {
    setState({ kind: 'working' });
    setCopied(false);
    try {
      const out = await getBridge().exportVersion(undefined, id, versionId, { format, withAudit: false });
      if (out.kind === 'error') {
        setState({ kind: 'error', message: userMessage(out.error) });
        return;
      }
      const steps = version?.steps ?? [];
      const budget = [...steps].reverse().find((s) => s.budget !== undefined)?.budget;
      const result = await resumeSession({
        agent,
        content: decodeExport(out.file.bytes),
        ...(cwd.trim() && { cwd: cwd.trim() }),
        lineage: {
          ...(link?.sessionId && { sourceSessionId: link.sessionId }),
          ...(link?.path && { sourcePath: link.path }),
          version: version?.name ?? 'Original',
          steps: steps.map(stepLabel),
          ...(budget !== undefined && { budget }),
        },
      });
      setState({ kind: 'done', result });
    } catch (e) {
      setState({ kind: 'error', message: userMessage(e) });
    }
  };

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };

  return (
    <section className="space-y-2 rounded-md border border-neutral-200 px-3 py-3 dark:border-neutral-800" data-testid="resume-panel" aria-labelledby="resume-title">
      <h3 id="resume-title" className="text-sm font-semibold">
        Resume as a new session
      </h3>
      {health.data === true ? (
        <>
          <p className="text-xs text-neutral-600 dark:text-neutral-400">
            Writes {version && version.id !== ORIGINAL_VERSION ? <>“{version.name}”</> : 'the original'} into {label}&apos;s own store as a <strong>new</strong> session, with a new id; the session it came from is not changed.
          </p>
          <div className="flex items-end gap-2">
            <label className="block min-w-0 flex-1">
              <span className="text-xs font-medium text-neutral-600 dark:text-neutral-400">Project folder to resume in</span>
              <input
                value={cwd}
                onChange={(e) => setCwd(e.target.value)}
                placeholder="the session's own folder"
                spellCheck={false}
                className="mt-1 block w-full rounded-md border border-neutral-300 bg-white px-2 py-1.5 font-mono text-xs dark:border-neutral-700 dark:bg-neutral-900"
                aria-label="Project folder to resume in"
                data-testid="resume-cwd"
              />
            </label>
            <Button variant="primary" className="shrink-0" onClick={() => void run()} disabled={state.kind === 'working'} data-testid="resume-run">
              {state.kind === 'working' ? 'Writing…' : `Resume in ${label}`}
            </Button>
          </div>
          {state.kind === 'error' && (
            <div role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300" data-testid="resume-error">
              <p className="font-semibold">Nothing was written.</p>
              <p>{state.message}</p>
            </div>
          )}
          {state.kind === 'done' && (
            <div ref={doneBox} role="status" className="space-y-1.5 rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-950 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-100" data-testid="resume-done">
              <p>
                New session <span className="font-mono" data-testid="resume-id">{state.result.sessionId}</span>, written to
              </p>
              <p className="break-all font-mono text-xs" data-testid="resume-path">
                {state.result.path}
              </p>
              <p className="text-xs">Resume it from a terminal:</p>
              <div className="flex items-center gap-2">
                <code className="min-w-0 flex-1 truncate rounded bg-white px-2 py-1 font-mono text-xs text-neutral-900 ring-1 ring-emerald-200 dark:bg-neutral-950 dark:text-neutral-100 dark:ring-emerald-900" data-testid="resume-command" title={state.result.command}>
                  {state.result.command}
                </code>
                <Button className="!px-2 !py-1 text-xs" onClick={() => void copy(state.result.command)} data-testid="resume-copy" aria-label="Copy the command">
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              </div>
            </div>
          )}
        </>
      ) : (
        <div className="space-y-1 text-xs text-neutral-600 dark:text-neutral-400" data-testid="resume-cli">
          <p>Download the file, then write it into {label}&apos;s store as a new session (a new id; the original is not changed) and get the command that resumes it:</p>
          <code className="block rounded bg-neutral-100 px-2 py-1 font-mono text-neutral-900 dark:bg-neutral-900 dark:text-neutral-100">contextscope resume FILE {flag}</code>
          <p>Or open this page with <code className="font-mono">contextscope open</code>: it then does this here, in one step.</p>
        </div>
      )}
    </section>
  );
}
