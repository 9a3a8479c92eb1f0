'use client';

import { useState } from 'react';
import { maskKey } from '@/lib/summarize/providers/errors';
import { Button } from '../ui/Button';
import { Field, INPUT } from './field';

/**
 * The API key: a stored key is only ever shown masked (sk-…abcd). Replacing it opens a password
 * field; the typed value goes to the draft and, on save, to IndexedDB — never back into the page.
 */
export function ApiKeyField({ value, onChange, problem, required }: { value: string; onChange: (key: string) => void; problem?: string; required: boolean }) {
  const [editing, setEditing] = useState(value === '');
  if (!editing && value) {
    return (
      <Field id="summary-key" label="API key" problem={problem} hint="Stored in this browser's IndexedDB only. Sent only to the provider above, directly from this page.">
        <div className="flex items-center gap-2">
          <code id="summary-key" data-testid="masked-key" className="rounded bg-neutral-100 px-2 py-1 text-sm dark:bg-neutral-800">
            {maskKey(value)}
          </code>
          <Button onClick={() => { onChange(''); setEditing(true); }}>Replace</Button>
          <Button variant="danger" onClick={() => { onChange(''); setEditing(true); }}>Remove</Button>
        </div>
      </Field>
    );
  }
  return (
    <Field
      id="summary-key"
      label={required ? 'API key' : 'API key (optional for a local server)'}
      problem={problem}
      hint="Stored in this browser's IndexedDB only. Sent only to the provider above, directly from this page."
    >
      <input
        id="summary-key"
        type="password"
        autoComplete="off"
        spellCheck={false}
        className={INPUT}
        value={value}
        placeholder={required ? 'paste your key' : 'none'}
        aria-invalid={problem ? true : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
    </Field>
  );
}
