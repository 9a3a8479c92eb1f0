import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { checkFixture } from './testing/fixture-check';
import { importBytes } from './import';
import { openhandsFormat } from './openhands';
import { sourceFromBytes } from '../read/source';
import { fatalPairing, testProjection } from './traj-test-helpers';
import { projectTranscript } from '../compaction/project';
import type { Step } from '../compaction/types';
import type { Block } from '../model/types';
import { transcriptTotals } from '../tokens/totals';

const files = corpusFiles('openhands');
const evalOutput = files.find((f) => f.endsWith('.jsonl'))!;
const bytesOf = (f: string) => new Uint8Array(fs.readFileSync(f));
const load = (f: string, conversation = 0) => importBytes(path.basename(f), bytesOf(f), { conversation }).transcript;

describe('openhands corpus', () => {
  for (const f of files) it(path.basename(f), () => checkFixture(f, expect, { format: 'openhands' }));
  for (const k of [1, 2]) it(`eval output conversation ${k}`, () => checkFixture(evalOutput, expect, { format: 'openhands', conversation: k }));
});

describe('openhands semantics', () => {
  it('lists the three instances of the eval output', () => {
    const list = openhandsFormat.listConversations!(sourceFromBytes('x.jsonl', bytesOf(evalOutput)));
    expect(list.map((c) => c.title)).toEqual(['ponylang__ponyc-4595', expect.any(String), expect.any(String)]);
    expect(list.every((c) => c.messages > 10)).toBe(true);
  });

  it('pairs observations to actions by cause, system prompt and tools from the system action', () => {
    const t = load(evalOutput);
    expect(t.messages[0].role).toBe('system');
    expect(t.tools.length).toBe(4);
    expect(fatalPairing(t)).toEqual([]);
    const calls = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call');
    const results = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(calls.length).toBe(22); // 13 run + 6 read + 2 edit + 1 think; finish is text
    expect(results.length).toBe(22);
    expect(calls[0]).toMatchObject({ name: 'execute_bash', rawInput: '{"command": "ls -l /workspace/ponylang__ponyc__0.1"}' });
  });

  it('turns cumulative accumulated_token_usage into per-call usage that sums back to the total', () => {
    const t = load(evalOutput);
    expect(t.usage.length).toBe(23);
    expect(t.usage.reduce((s, u) => s + u.input + u.cacheRead + u.cacheWrite, 0)).toBe(565158);
    expect(t.usage.reduce((s, u) => s + u.output, 0)).toBe(2558);
    expect(t.usage[0]).toMatchObject({ input: 5920, output: 128 });
  });

  it('reads usage once per model response when there are no llm_metrics', () => {
    const t = load(files.find((f) => f.endsWith('openhands_trajs_basic.json'))!);
    expect(t.usage.map((u) => u.output)).toEqual([1135, 177]);
  });

  it('a condensation action becomes a marker covering the forgotten events, with its summary', () => {
    const events = [
      { id: 0, source: 'user', message: 'do it', action: 'message', args: { content: 'do it' } },
      { id: 1, source: 'agent', message: 'Running command: ls', action: 'run', args: { command: 'ls', thought: 'look' }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'c1' } },
      { id: 2, source: 'agent', cause: 1, observation: 'run', content: 'a b', extras: {} },
      { id: 3, source: 'agent', message: 'Summary: looked', action: 'condensation', args: { forgotten_event_ids: [1, 2], summary: 'looked at files' } },
      { id: 4, source: 'agent', message: 'done', action: 'finish', args: { final_thought: 'done' } },
    ];
    const t = importBytes('t.json', new TextEncoder().encode(JSON.stringify(events, null, 2))).transcript;
    expect(t.format).toBe('openhands');
    expect(t.markers).toEqual([{ id: 'k0', source: 'openhands-condensation', atMessage: 3, covers: [1, 3], summary: 'looked at files', recordRef: 3 }]);
    expect(t.messages[3].blocks[0]).toMatchObject({ kind: 'summary', text: 'looked at files', markerId: 'k0' });
  });

  it('reads reasoning_content of the model response once per response', () => {
    const resp = { id: 'r1', model: 'deepseek-r1', choices: [{ message: { content: 'x', reasoning_content: 'because', tool_calls: [] } }] };
    const events = [
      { id: 0, source: 'user', message: 'go', action: 'message', args: { content: 'go' } },
      { id: 1, source: 'agent', message: 'a', action: 'run', args: { command: 'ls', thought: 't' }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'c1', model_response: resp, total_calls_in_response: 2 } },
      { id: 2, source: 'agent', cause: 1, observation: 'run', content: 'out', extras: {} },
      { id: 3, source: 'agent', message: 'b', action: 'run', args: { command: 'pwd', thought: '' }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'c2', model_response: resp, total_calls_in_response: 2 } },
      { id: 4, source: 'agent', cause: 3, observation: 'run', content: '/', extras: {} },
    ];
    const t = importBytes('t.json', new TextEncoder().encode(JSON.stringify(events, null, 2))).transcript;
    expect(t.messages[1].blocks.map((b) => b.kind)).toEqual(['reasoning', 'text', 'tool_call']);
    expect(t.messages[3].blocks.map((b) => b.kind)).toEqual(['tool_call']);
    expect(t.model).toBe('deepseek-r1');
  });

  for (const f of files) {
    it(`exports a projection of ${path.basename(f)}: stubbed results, summary as a condensation action`, () => {
      const t = load(f);
      const p = testProjection(t, { stubResults: '[result expired]' });
      const out = openhandsFormat.serialize(t, p);
      const back = importBytes(path.basename(f), new TextEncoder().encode(out.text), { format: 'openhands' }).transcript;
      expect(back.messages.length).toBe(t.messages.length);
      expect(fatalPairing(back)).toEqual([]);
      expect(back.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result').every((b) => b.kind === 'tool_result' && b.content === '[result expired]')).toBe(true);
      expect(openhandsFormat.serialize(t, p).text).toBe(out.text);

      const span: [number, number] = t.turnCount > 1 ? [1, 1] : [0, 0];
      const s = testProjection(t, { summarizeTurns: span, summaryText: 'SUMMARY-MARKER' });
      const back2 = importBytes(path.basename(f), new TextEncoder().encode(openhandsFormat.serialize(t, s).text), { format: 'openhands' }).transcript;
      expect(back2.markers.length).toBe(1);
      expect(back2.markers[0].summary).toBe('SUMMARY-MARKER');
      expect(fatalPairing(back2)).toEqual([]);
    });
  }
});

describe('openhands export: stripped tool-call arguments (tool-hints request strip)', () => {
  const strip: Step = { id: 'strip', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'tool-hints', options: { request: 'strip', useDefaults: false, maxArgChars: 40 } }], keepLast: 0, createdAt: '2026-01-01T00:00:00Z' };
  for (const f of corpusFiles('openhands'))
    it(path.basename(f), () => {
      const bytes = new Uint8Array(fs.readFileSync(f));
      const t = importBytes(path.basename(f), bytes).transcript;
      const p = projectTranscript(t, [strip]);
      const stripped = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call' && JSON.stringify(b.input).includes('[stripped '));
      expect(stripped.length).toBeGreaterThan(0);
      const out = openhandsFormat.serialize(t, p);
      const re = importBytes(out.fileName, new TextEncoder().encode(out.text), { format: 'openhands' }).transcript;
      // Every call is still there, with the projected (stripped) arguments, and still paired.
      const inputs = (ms: ReadonlyArray<{ blocks: readonly Block[] }>) => ms.flatMap((m) => m.blocks).flatMap((b) => (b.kind === 'tool_call' ? [[b.callId, JSON.stringify(b.input)]] : []));
      expect(inputs(re.messages)).toEqual(inputs(p.messages));
      expect(fatalPairing(re)).toEqual(fatalPairing(t));
      expect(re.messages.length).toBe(t.messages.length);
      expect(transcriptTotals(re).total).toBe(p.tokens.after.total);
    });
});
