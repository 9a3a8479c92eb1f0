import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { checkFixture } from './testing/fixture-check';
import { importBytes } from './import';
import { detectMiniSweAgent, miniSweAgentFormat } from './mini-swe-agent';
import { fatalPairing, testProjection } from './traj-test-helpers';

const files = corpusFiles('mini-swe-agent');
const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2));

describe('mini-swe-agent corpus', () => {
  for (const f of files) it(path.basename(f), () => checkFixture(f, expect, { format: 'mini-swe-agent' }));
});

describe('mini-swe-agent semantics', () => {
  const f = files[0];
  const t = importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;

  it('each mswea_bash_command block is a bash call answered by the next user message', () => {
    const calls = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call');
    expect(calls.length).toBe(10);
    expect(calls[0]).toMatchObject({ name: 'bash', input: 'cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py' });
    expect(fatalPairing(t)).toEqual([]);
    expect(t.messages.filter((m) => m.role === 'tool').length).toBe(10);
  });

  it('does not claim a plain Chat messages array', () => {
    const chat = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Run ls' },
      { role: 'assistant', content: 'Sure:\n```bash\nls\n```' },
      { role: 'user', content: 'thanks' },
    ];
    expect(detectMiniSweAgent({ name: 'x.json', text: '', values: [chat], container: 'json' })).toBeNull();
    expect(detectMiniSweAgent({ name: 'x.json', text: '', values: [{ messages: chat }], container: 'json' })).toBeNull();
  });

  it('reads the full {info, messages, trajectory_format} file with per-call usage from extra.response', () => {
    const doc = {
      info: { model_stats: { instance_cost: 0.01, api_calls: 1 }, config: { model: { model_name: 'gpt-4o' } }, mini_version: '1.9.0', exit_status: 'Submitted', submission: '' },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: 'THOUGHT\n```bash\nls\n```', extra: { response: { model: 'gpt-4o-2024', usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 40 } } } } },
        { role: 'user', content: '<returncode>0</returncode>\n<output>\na\n</output>' },
      ],
      trajectory_format: 'mini-swe-agent-1.1',
    };
    const r = importBytes('run.traj.json', enc(doc));
    expect(r.transcript.format).toBe('mini-swe-agent');
    expect(r.transcript.model).toBe('gpt-4o');
    expect(r.transcript.usage).toEqual([{ messageIndex: 2, model: 'gpt-4o-2024', input: 60, cacheRead: 40, cacheWrite: 0, output: 7 }]);
    expect(fatalPairing(r.transcript)).toEqual([]);
    expect(miniSweAgentFormat.serialize(r.transcript).text).toBe(new TextDecoder().decode(enc(doc)));
  });

  it('reads v2 tool-call trajectories (tool_calls + role tool) in the model\'s native shape', () => {
    const doc = {
      info: { mini_version: '2.0.0', config: { model: { model_name: 'claude-sonnet-4-5' } } },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'fix' },
        { role: 'assistant', content: 'run it', tool_calls: [{ id: 't1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }], extra: { actions: [{ command: 'ls' }], response: { usage: { input_tokens: 50, output_tokens: 5, cache_read_input_tokens: 10 } } } },
        { role: 'tool', tool_call_id: 't1', content: '<returncode>0</returncode>' },
      ],
      trajectory_format: 'mini-swe-agent-1.1',
    };
    const t = importBytes('v2.traj.json', enc(doc)).transcript;
    expect(t.format).toBe('mini-swe-agent');
    expect(t.messages[2].blocks.map((b) => b.kind)).toEqual(['text', 'tool_call']);
    expect(t.messages[3].blocks[0]).toMatchObject({ kind: 'tool_result', callId: 't1', name: 'bash' });
    expect(t.usage[0]).toMatchObject({ messageIndex: 2, input: 50, cacheRead: 10, output: 5 });
    expect(fatalPairing(t)).toEqual([]);
  });

  it('exports a projection: stubbed outputs stay paired, summary as a user message', () => {
    const p = testProjection(t, { stubResults: '<returncode>0</returncode>\n<output>[cleared]</output>' });
    const out = miniSweAgentFormat.serialize(t, p);
    const back = importBytes('x.json', new TextEncoder().encode(out.text), { format: 'mini-swe-agent' }).transcript;
    expect(back.messages.length).toBe(t.messages.length);
    expect(fatalPairing(back)).toEqual([]);
    expect(back.messages.filter((m) => m.role === 'tool').every((m) => m.blocks[0].kind === 'tool_result' && m.blocks[0].content.includes('[cleared]'))).toBe(true);
    const s = testProjection(t, { summarizeTurns: [1, 1], summaryText: 'SUMMARY-MARKER' });
    const back2 = importBytes('x.json', new TextEncoder().encode(miniSweAgentFormat.serialize(t, s).text), { format: 'mini-swe-agent' }).transcript;
    expect(back2.messages.at(-1)!.blocks[0]).toMatchObject({ kind: 'text', text: 'SUMMARY-MARKER' });
  });
});
