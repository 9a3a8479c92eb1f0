import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { checkFixture } from './testing/fixture-check';
import { importBytes } from './import';
import { sweAgentFormat } from './swe-agent';
import { fatalPairing, testProjection } from './traj-test-helpers';
import { projectTranscript } from '../compaction/project';
import type { Step } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import fs from 'node:fs';

const files = corpusFiles('swe-agent');

describe('swe-agent corpus', () => {
  it('has the three corpus files', () => expect(files.length).toBe(3));
  for (const f of files) it(path.basename(f), () => checkFixture(f, expect, { format: 'swe-agent' }));
});

function load(name: string) {
  const f = files.find((x) => x.endsWith(name))!;
  return importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
}

describe('swe-agent semantics', () => {
  it('1.x: tool_calls pair with tool_call_ids results', () => {
    const t = load('marshmallow-1867_function_calling.traj');
    const calls = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call');
    const results = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(calls.length).toBe(13);
    expect(results.length).toBe(13);
    expect(fatalPairing(t)).toEqual([]);
    expect(t.warnings.some((w) => w.code === 'usage:totals-only')).toBe(true);
  });

  it('0.x: actions parsed from text become calls, observations their results, demos are meta', () => {
    const t = load('pydicom-1458_legacy.traj');
    const demo = t.messages[1];
    expect(demo.meta).toBe(true);
    const calls = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call');
    expect(calls.length).toBe(12);
    expect(calls[0]).toMatchObject({ name: 'create', input: 'create reproduce_bug.py' });
    // the call id is synthetic and never written into the records
    expect(t.records.some((r) => r.text.includes('swe-action-'))).toBe(false);
    expect(fatalPairing(t)).toEqual([]);
    // assistant text excludes the fenced action (not counted twice)
    const first = t.messages[3].blocks.find((b) => b.kind === 'text');
    expect(first && first.kind === 'text' && first.text.includes('```')).toBe(false);
  });

  for (const name of ['marshmallow-1867_function_calling.traj', 'pydicom-1458_legacy.traj', 'function_calling_simple_demo.traj']) {
    it(`exports a projection of ${name}: stubbed results, pairing kept, untouched records verbatim`, () => {
      const t = load(name);
      const p = testProjection(t, { stubResults: '[result expired]' });
      const out = sweAgentFormat.serialize(t, p);
      const back = importBytes('x.traj', new TextEncoder().encode(out.text), { format: 'swe-agent' }).transcript;
      expect(fatalPairing(back)).toEqual([]);
      const results = back.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((b) => b.kind === 'tool_result' && b.content === '[result expired]')).toBe(true);
      expect(back.messages.length).toBe(t.messages.length);
      const sys = t.messages.find((m) => m.role === 'system')!;
      expect(out.text).toContain(t.records[sys.recordRefs[0]].text);
      expect(sweAgentFormat.serialize(t, p).text).toBe(out.text);
    });

    it(`exports a summarized ${name} as a user message carrying the summary`, () => {
      const t = load(name);
      const p = testProjection(t, { summarizeTurns: [1, t.turnCount - 1], summaryText: 'SUMMARY-MARKER' });
      const out = sweAgentFormat.serialize(t, p);
      const back = importBytes('x.traj', new TextEncoder().encode(out.text), { format: 'swe-agent' }).transcript;
      expect(back.messages.length).toBe(p.messages.length);
      expect(back.messages.at(-1)!.role).toBe('user');
      expect(back.messages.at(-1)!.blocks[0]).toMatchObject({ kind: 'text', text: 'SUMMARY-MARKER' });
      expect(back.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_call'))).toBe(false);
      expect(fatalPairing(back)).toEqual([]);
    });
  }

  it('thinking_blocks are reasoning with their signature; stripping them drops the signature on export', () => {
    const doc = {
      trajectory: [],
      history: [
        { role: 'system', content: 'sys', agent: 'main', message_type: 'system_prompt' },
        { role: 'user', content: 'task', agent: 'main', message_type: 'observation' },
        {
          role: 'assistant',
          content: 'let me look',
          thought: 'let me look',
          action: 'ls',
          agent: 'main',
          message_type: 'action',
          thinking_blocks: [{ type: 'thinking', thinking: 'hmm', signature: 'SIG1' }, { type: 'redacted_thinking', data: 'ENC' }],
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
        },
        { role: 'tool', content: 'out', agent: 'main', message_type: 'observation', tool_call_ids: ['c1'] },
        { role: 'user', content: 'demo', agent: 'main', is_demo: true },
        { role: 'assistant', content: 'sub', agent: 'reviewer' },
      ],
      info: { model_stats: { api_calls: 1 } },
    };
    const t = importBytes('t.traj', new TextEncoder().encode(JSON.stringify(doc, null, 2))).transcript;
    expect(t.messages[2].blocks.map((b) => b.kind)).toEqual(['reasoning', 'reasoning', 'text', 'tool_call']);
    expect(t.messages[2].blocks[0]).toMatchObject({ text: 'hmm', opaque: 'SIG1' });
    expect(t.messages[2].blocks[1]).toMatchObject({ redacted: true, opaque: 'ENC' });
    expect(t.messages[4].meta).toBe(true);
    expect(t.messages[5].sidechain).toBe(true);
    const out = sweAgentFormat.serialize(t, testProjection(t, { stripReasoning: true })).text;
    expect(out).not.toContain('SIG1');
    expect(out).not.toContain('ENC');
    const back = importBytes('t.traj', new TextEncoder().encode(out)).transcript;
    expect(back.messages[2].blocks.map((b) => b.kind)).toEqual(['text', 'tool_call']);
    expect(fatalPairing(back)).toEqual([]);
  });

  it('rejects a history that is not an array with a located error', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ trajectory: [], history: { role: 'user' } }));
    expect(() => importBytes('bad.traj', bytes, { format: 'swe-agent' })).toThrow(/history/);
    try {
      importBytes('bad.traj', bytes, { format: 'swe-agent' });
    } catch (e) {
      expect((e as { code: string }).code).toBe('malformed:structure');
      expect((e as { where: { path: string } }).where.path).toBe('$.history');
    }
  });
});

describe('swe-agent export: a removed tool call leaves the history record (dedup-tools removal)', () => {
  const dedup: Step = { id: 'dedup', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'dedup-tools', options: { mode: 'remove' } }], keepLast: 0, createdAt: '2026-01-01T00:00:00Z' };
  const removing = ['swe-agent_gpt4_pydicom-1458_legacy.traj', 'swe-agent_marshmallow-1867_function_calling.traj'];
  // Messages that lost their call but keep their text, per file (dedup keeps a failed re-run's
  // earlier result as a stub now, so not every file still has one).
  const keptTextFor = new Map<string, number>();
  for (const name of removing)
    it(name, () => {
      const t = load(name);
      const p = projectTranscript(t, [dedup]);
      // (Dedup keeps failed re-runs and side-effecting shell commands: a file may remove none now.)
      const removed = Object.values(p.fates).filter((x) => x.kind === 'removed' || x.kind === 'deduped').length;
      // Some removed call sat in a message that keeps its text: the case the record must drop the action from.
      const keptWithoutCall = p.messages.filter((pm) => {
        const src = t.messages.find((m) => m.id === pm.sourceId);
        return src?.blocks.some((b) => b.kind === 'tool_call') && !pm.blocks.some((b) => b.kind === 'tool_call');
      });
      keptTextFor.set(name, removed > 0 ? keptWithoutCall.length : 0);
      const out = sweAgentFormat.serialize(t, p);
      const re = importBytes(out.fileName, new TextEncoder().encode(out.text), { format: 'swe-agent' }).transcript;
      const calls = (ms: ReadonlyArray<{ blocks: readonly { kind: string }[] }>) => ms.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').length;
      expect(calls(re.messages)).toBe(calls(p.messages));
      // No new pairing issue: only the source's own in-flight call at the end (if any) remains.
      expect(fatalPairing(re).length).toBe(fatalPairing(t).length);
      expect(validatePairing(re.messages).length).toBe(validatePairing(t.messages).length);
      const history = (JSON.parse(out.text) as { history: Array<Record<string, unknown>> }).history;
      for (const pm of keptWithoutCall) {
        const rec = history.find((h) => h.role === 'assistant' && typeof h.thought === 'string' && h.thought === pm.blocks.map((b) => ('text' in b ? b.text : '')).join('\n\n') && !('tool_calls' in h));
        expect(rec, 'the rewritten record').toBeDefined();
        expect(rec!.action).toBeUndefined();
      }
    });
  it('one of them removes a call from a message that keeps its text (the record is rewritten, not dropped)', () => {
    expect([...keptTextFor.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
