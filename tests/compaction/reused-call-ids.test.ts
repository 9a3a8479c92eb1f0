/**
 * Issue #17: tool-call ids used more than once (tau-bench re-uses them 73 times over 200 episodes,
 * SWE-agent 4 times in one trajectory). The two smallest failures the property run found, written
 * from the description: dedup-tools threw CompactionInvariantError, and auto exported a
 * call with no result.
 */
import { describe, expect, it } from 'vitest';
import { blockFate, projectTranscript } from '../../lib/compaction/project';
import type { Step } from '../../lib/compaction/types';
import { importBytes } from '../../lib/formats/import';
import { formatById } from '../../lib/formats/registry';
import { isFatalForExport, validatePairing } from '../../lib/model/pairing';
import type { Transcript } from '../../lib/model/types';
import { transcriptTotals } from '../../lib/tokens/totals';

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const tool = (id: string, content: string) => ({ role: 'tool', tool_call_id: id, content });
const lines = (file: string, n: number) => Array.from({ length: n }, (_, k) => `${k + 1}\tconst ${file.replace(/\W/g, '_')}_${k} = ${k};`).join('\n');

function importChat(messages: unknown[]): Transcript {
  return importBytes('reused.json', new TextEncoder().encode(JSON.stringify({ model: 'gpt-4o', messages }, null, 2))).transcript;
}

/** Serialize in the source format, read back, and list the fatal pairing issues of the file written. */
function exportAndReimport(log: Transcript, steps: Step[]): { back: Transcript; fatal: ReturnType<typeof validatePairing> } {
  const p = projectTranscript(log, steps);
  const out = formatById(log.format)!.serialize(log, p);
  const back = importBytes(out.fileName, new TextEncoder().encode(out.text), { format: log.format }).transcript;
  const main = back.messages.filter((m) => !m.sidechain);
  return { back, fatal: validatePairing(main).filter((i) => isFatalForExport(i, main.length)) };
}

const whole = { kind: 'after-last-compaction' } as const;

describe('reused tool-call ids (issue #17)', () => {
  it('two calls with the same id in one message are answered in order; dedup-tools keeps every pair whole', () => {
    const log = importChat([
      { role: 'assistant', content: null, tool_calls: [call('call_1', 'Read', { file_path: 'src/a.ts' }), call('call_1', 'Read', { file_path: 'src/b.ts' })] },
      tool('call_1', lines('src/a.ts', 20)),
      tool('call_1', lines('src/b.ts', 20)),
      { role: 'user', content: 'now look at b again' },
      { role: 'assistant', content: null, tool_calls: [call('call_3', 'Read', { file_path: 'src/b.ts' }), call('call_4', 'Bash', { command: 'npm test' })] },
      tool('call_3', lines('src/b.ts', 20)),
      tool('call_4', 'all passed'),
      { role: 'user', content: 'thanks' },
    ]);
    // The import pairs each result with its own occurrence: nothing is broken.
    expect(validatePairing(log.messages)).toEqual([]);
    const results = log.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    const calls = log.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call');
    expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.callId));
    // The second result (src/b.ts) answers the second call (src/b.ts), not the first.
    expect(results[1]).toMatchObject({ callId: calls[1].callId, content: expect.stringContaining('src_b_ts') });

    for (const mode of ['remove', 'stub'] as const) {
      const steps: Step[] = [{ id: 's', range: whole, reducers: [{ id: 'dedup-tools', options: { mode } }, { id: 'strip-reasoning' }], keepLast: 0, createdAt: '' }];
      const p = projectTranscript(log, steps); // threw CompactionInvariantError (orphan-result for call_1#2)
      expect(validatePairing(p.messages)).toEqual([]);
      const dedup = p.report.find((r) => r.reducer === 'dedup-tools')!;
      expect(dedup.tokensAfter).toBeLessThan(dedup.tokensBefore); // the earlier read of src/b.ts really went
      const { fatal } = exportAndReimport(log, steps);
      expect(fatal).toEqual([]);
    }
  });

  it('a re-used id whose first use has no result: the warning names it, and auto exports no call without its result', () => {
    const log = importChat([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'read a.ts' },
      { role: 'assistant', content: null, tool_calls: [call('call_1', 'Read', { file_path: 'src/a.ts', offset: 0, limit: 1 })] },
      { role: 'user', content: 'read all of it' },
      { role: 'assistant', content: null, tool_calls: [call('call_1', 'Read', { file_path: 'src/a.ts' }), call('call_3', 'Read', { file_path: 'src/a.ts' })] },
      tool('call_1', lines('src/a.ts', 30)),
      tool('call_3', lines('src/a.ts', 30)),
      { role: 'user', content: 'ok' },
    ]);
    // Broken beyond repair in the input: the first call_1 has no result. The warning says which.
    const missing = log.warnings.find((w) => w.code === 'pairing:missing-result');
    expect(missing?.message).toMatch(/call_1\b/);
    expect(missing?.message).toMatch(/message 2/);
    // The result answers the call_1 of the message just before it.
    const answered = log.messages[5].blocks[0];
    const secondUse = log.messages[4].blocks[0];
    expect(answered.kind === 'tool_result' && secondUse.kind === 'tool_call' && answered.callId === secondUse.callId).toBe(true);

    const budget = Math.max(1, Math.floor(transcriptTotals(log).total * 0.01));
    const steps: Step[] = [{ id: 's', range: { kind: 'turns', from: 0, to: 2 }, reducers: [{ id: 'auto', options: { conservative: false } }, { id: 'strip-reasoning' }], keepLast: 0, budget, createdAt: '' }];
    const p = projectTranscript(log, steps);
    // The projection adds no issue to the input's own (the one missing result).
    expect(validatePairing(p.messages).filter((i) => !(i.kind === 'missing-result' && i.callId === 'call_1'))).toEqual([]);
    const { fatal } = exportAndReimport(log, steps);
    expect(fatal).toEqual([]);
    // The step left the never-answered call out and says so, naming it.
    expect(p.fates[log.messages[2].blocks[0].id]).toMatchObject({ kind: 'removed', stepId: 's' });
    expect(p.report.flatMap((r) => r.notes).find((n) => n.startsWith('pairing repair'))).toMatch(/call\(s\) without a result: call_1\b/);
    // Outside the step's range (keep_last) the input's broken pair stays as it is.
    // (tail 'turns': whole turns, even when they exceed the budget; by default the tail would narrow to the last call.)
    const protectedSteps: Step[] = [{ ...steps[0], range: whole, keepLast: 3, tail: 'turns' }];
    const q = projectTranscript(log, protectedSteps);
    expect(q.fates[log.messages[2].blocks[0].id]).toBeUndefined();
    expect(blockFate(q, log.messages[2].blocks[0].id)).toEqual({ kind: 'kept' });
    expect(q.report.flatMap((r) => r.notes).some((n) => n.startsWith('pairing repair'))).toBe(false);
  });
});
