import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { formatById } from '../formats/registry';
import { projectTranscript } from '../compaction/project';
import type { Step } from '../compaction/types';
import { buildAudit } from '../compaction/audit';
import { historyLeftOut } from './compaction';

const load = (family: string, name: string) => {
  const file = corpusFiles(family).find((f) => path.basename(f) === name)!;
  return importBytes(name, new Uint8Array(fs.readFileSync(file))).transcript;
};
const window = (maxTurns: number): Step => ({ id: 'w', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'sliding-window', options: { maxTurns } }], keepLast: 1, createdAt: '' });

describe('what a compacted export in the source format leaves out of the file (issue 13)', () => {
  it('a format without history: exactly the source messages the re-imported file no longer holds', () => {
    const t = load('gemini-cli', 'vibecodingtracker_gemini_session.jsonl');
    expect(formatById(t.format)!.keepsHistory).toBeFalsy();
    const p = projectTranscript(t, [window(1)]);
    const left = historyLeftOut(t, p, false);
    expect(left.messages).toBeGreaterThan(0);
    expect(left.removed).toBe(left.messages);
    const out = formatById(t.format)!.serialize(t, p);
    const back = importBytes(out.fileName, new TextEncoder().encode(out.text), { format: t.format }).transcript;
    const main = t.messages.filter((m) => !m.sidechain);
    expect(main.length - left.messages).toBe(back.messages.filter((m) => !m.sidechain).length);
    expect(left.tokens).toBe(main.filter((m) => !p.messages.some((pm) => pm.sourceId === m.id)).reduce((n, m) => n + m.blocks.reduce((s, b) => s + b.tokens, 0), 0));
    // The audit record carries the same numbers.
    const audit = buildAudit({ log: t, steps: [window(1)], projection: p, lost: [], output: { fileName: out.fileName, format: t.format, leftOut: left } });
    expect(audit.output!.leftOut!.messages).toBe(left.messages);
  });

  it('Claude Code and Codex keep what a compaction took out as history; what the file does not hold is counted from the file', () => {
    for (const [family, name] of [['claude-code', 'slopometry_transcript_opus45_compact.jsonl'], ['codex-cli', 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl']] as const) {
      const t = load(family, name);
      const fmt = formatById(t.format)!;
      expect(fmt.keepsHistory).toBe(true);
      const summarize: Step = { id: 's', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'summarize' }], keepLast: 1, createdAt: '' };
      for (const step of [summarize, window(1)]) {
        const p = projectTranscript(t, [step]);
        const text = fmt.serialize(t, p).text;
        const left = historyLeftOut(t, p, true, text);
        expect(left.keepsHistory).toBe(true);
        // Counted from the file: a message is left out when none of its lines is in it.
        const lines = new Set(text.split(/\r?\n/));
        const carried = new Set(p.messages.map((m) => m.sourceId));
        const missing = t.messages.filter((m) => !m.sidechain && !carried.has(m.id) && !m.recordRefs.some((r) => lines.has(t.records[r].text)));
        expect(left.messages, `${name} ${step.id}`).toBe(missing.length);
      }
      // A summary writes the compaction point: everything it took out stays in the file as history.
      expect(historyLeftOut(t, projectTranscript(t, [summarize]), true, fmt.serialize(t, projectTranscript(t, [summarize])).text).messages, name).toBe(0);
    }
  });
});
