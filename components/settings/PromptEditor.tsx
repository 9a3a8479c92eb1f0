'use client';

import { DEFAULT_PROMPTS } from '@/lib/summarize/templates';
import type { SummaryStyle } from '@/lib/summarize/types';
import { Button } from '../ui/Button';
import { Field, INPUT } from './field';

const STYLES: { id: SummaryStyle; label: string; hint: string }[] = [
  { id: 'structured', label: 'Structured (six sections)', hint: 'Active Task, Key Decisions, Files & Artifacts, Constraints, Pending Items, Session Narrative.' },
  { id: 'claude-code', label: 'Claude Code style (nine sections)', hint: 'Includes every user message verbatim.' },
  { id: 'narrative', label: 'Narrative', hint: 'Prose, in order. For conversational sessions.' },
];

/** Prompt style and the editable user template (placeholders shown; empty = the built-in one). */
export function PromptEditor({ style, template, onStyle, onTemplate, problem }: { style: SummaryStyle; template: string; onStyle: (s: SummaryStyle) => void; onTemplate: (t: string) => void; problem?: string }) {
  const builtIn = DEFAULT_PROMPTS[style];
  return (
    <div className="space-y-4">
      <fieldset className="space-y-1.5">
        <legend className="text-sm font-medium">Summary style</legend>
        {STYLES.map((s) => (
          <label key={s.id} className="flex items-start gap-2 text-sm">
            <input type="radio" name="summary-style" value={s.id} checked={style === s.id} onChange={() => onStyle(s.id)} className="mt-1" />
            <span>
              {s.label}
              <span className="block text-xs text-neutral-500">{s.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <Field
        id="summary-template"
        label="Prompt template"
        problem={problem}
        hint={
          <>
            Placeholders: <code>{'{{conversation}}'}</code> (the span, required), <code>{'{{previous_summary}}'}</code>, <code>{'{{span}}'}</code>, <code>{'{{checklist}}'}</code> (files the summary must name). Used by LLM providers; the offline summarizer needs no prompt.
          </>
        }
      >
        <textarea id="summary-template" rows={8} className={`${INPUT} font-mono text-xs`} value={template || builtIn.user} onChange={(e) => onTemplate(e.target.value === builtIn.user ? '' : e.target.value)} aria-invalid={problem ? true : undefined} />
      </Field>
      <div className="flex items-center gap-2">
        <Button onClick={() => onTemplate('')} disabled={!template}>
          Reset to the built-in template
        </Button>
      </div>
      <details className="text-xs text-neutral-600 dark:text-neutral-400">
        <summary className="cursor-pointer">System prompt of this style (read-only)</summary>
        <pre className="mt-2 whitespace-pre-wrap rounded bg-neutral-50 p-2 dark:bg-neutral-900">{builtIn.system}</pre>
      </details>
    </div>
  );
}
