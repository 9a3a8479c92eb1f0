'use client';

import { useRef, useState } from 'react';
import { Button } from '../ui/Button';

const FORMATS_LINE = 'Claude Code, Codex, OpenAI, Anthropic, Gemini, OpenHands, SWE-agent, Inspect';

/** Drop, pick or paste a transcript, or open the demo. Files are read here and parsed in the worker. */
export function DropZone({
  onFiles,
  onPaste,
  onSample,
  busy,
}: {
  onFiles: (files: File[]) => void;
  onPaste: (text: string) => void;
  onSample: () => void;
  busy: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [pasteOpen, setPasteOpen] = useState(false);
  const [pasted, setPasted] = useState('');

  return (
    <section
      data-testid="drop-zone"
      aria-label="Import a transcript"
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const files = Array.from(e.dataTransfer.files);
        if (files.length) onFiles(files);
      }}
      className={`rounded-xl border-2 border-dashed px-6 py-8 text-center transition-colors ${
        over ? 'border-blue-500 bg-blue-50 dark:bg-blue-950/30' : 'border-neutral-300 bg-neutral-50/60 dark:border-neutral-700 dark:bg-neutral-900/40'
      }`}
    >
      <p className="text-lg font-medium">Drop a transcript</p>
      <p className="mt-1 text-sm text-neutral-500 dark:text-neutral-400">{FORMATS_LINE}</p>
      <p className="mt-1 text-xs text-neutral-500 dark:text-neutral-400">.jsonl · .json · .traj · .eval · .gz — parsed in your browser, stored in IndexedDB, never uploaded.</p>
      <div className="mt-5 flex flex-wrap items-center justify-center gap-2">
        <Button variant="primary" onClick={() => input.current?.click()} disabled={busy} data-testid="choose-file">
          Choose files…
        </Button>
        <Button onClick={() => setPasteOpen((o) => !o)} aria-expanded={pasteOpen} data-testid="paste-toggle">
          Paste JSON / JSONL
        </Button>
        <Button onClick={onSample} disabled={busy} data-testid="open-sample">
          Open a sample
        </Button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="file-input"
          accept=".jsonl,.json,.traj,.eval,.gz,.responses,.txt,application/json"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = '';
            if (files.length) onFiles(files);
          }}
        />
      </div>
      {pasteOpen && (
        <form
          className="mx-auto mt-4 max-w-3xl text-left"
          onSubmit={(e) => {
            e.preventDefault();
            if (pasted.trim()) {
              onPaste(pasted);
              setPasted('');
              setPasteOpen(false);
            }
          }}
        >
          <label htmlFor="paste-box" className="text-sm font-medium">
            Paste a transcript (a JSON document or JSONL lines)
          </label>
          <textarea
            id="paste-box"
            data-testid="paste-box"
            value={pasted}
            onChange={(e) => setPasted(e.target.value)}
            rows={8}
            spellCheck={false}
            className="mt-1 w-full rounded-md border border-neutral-300 bg-white p-2 font-mono text-xs dark:border-neutral-700 dark:bg-neutral-950"
            placeholder='{"messages": [{"role": "user", "content": "…"}]}'
          />
          <div className="mt-2 flex justify-end gap-2">
            <Button onClick={() => setPasteOpen(false)}>Cancel</Button>
            <Button variant="primary" type="submit" disabled={!pasted.trim() || busy} data-testid="paste-import">
              Import pasted text
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
