import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { makeTranscript } from './testing/make';
import { proposeTangents } from './tangents';
import { projectTranscript } from './project';
import { step } from './testing/steps';

const log = makeTranscript([
  { user: 'Implement caching in src/cache.ts', tools: [{ name: 'Read', input: { file_path: 'src/cache.ts' }, output: 'export {}' }], answer: 'ok' },
  { user: 'btw what is the capital of France?', answer: 'Paris' },
  { user: 'check the docs', tools: [{ name: 'WebFetch', input: { url: 'https://weather.example.com/today' }, output: 'sunny, see https://weather.example.com/tomorrow and https://maps.example.org/paris' }], answer: 'sunny' },
  { user: 'now add tests for src/cache.ts', tools: [{ name: 'Write', input: { file_path: 'src/cache.test.ts', content: 'x' }, output: 'ok' }], answer: 'done' },
  { user: 'run them against src/cache.test.ts', answer: 'passing' },
]);

describe('proposeTangents', () => {
  it('proposes asides and isolated turns, never the task prompt or keep_last', () => {
    const p = proposeTangents(log, { keepLast: 1 });
    expect(p.map((x) => x.turn)).toEqual([1, 2]);
    expect(p[0].reason).toContain('aside');
    expect(p[1].reason).toContain('appear in no other turn');
    expect(proposeTangents(log, { keepLast: 4 })).toEqual([]);
  });
  it('does not propose the end of the task: one or two identifiers seen once are no evidence, nor a wrap-up prompt (issue 30)', () => {
    // The shipped demo: "Add the changelog entry to CHANGELOG.md", "Commit with a good message", "Push and open a PR"
    // were proposed as tangents for "1 identifier(s) appear in no other turn".
    const demo = importBytes('contextscope-demo.jsonl', new Uint8Array(fs.readFileSync(path.join(process.cwd(), 'public/sample/contextscope-demo.jsonl')))).transcript;
    expect(demo.turnCount).toBe(40);
    expect(proposeTangents(demo, { keepLast: 1 })).toEqual([]);
    const wrap = makeTranscript([
      { user: 'Implement caching in src/cache.ts', answer: 'ok' },
      { user: 'Commit with a good message', tools: [{ name: 'Bash', input: { command: 'git commit -m x' }, output: 'abc1234 at https://git.example.com/r/1 and https://ci.example.com/b/2 (build.log)' }], answer: 'done' },
      { user: 'thanks', answer: 'bye' },
    ]);
    expect(proposeTangents(wrap, { keepLast: 1 })).toEqual([]);
  });
  it('a ticked tangent inside a summarized range: the note says why nothing changes (issue 30)', () => {
    const demo = importBytes('contextscope-demo.jsonl', new Uint8Array(fs.readFileSync(path.join(process.cwd(), 'public/sample/contextscope-demo.jsonl')))).transcript;
    const summarize = step(['summarize'], { keepLast: 0, range: { kind: 'turns', from: 25, to: 33 } });
    const span = projectTranscript(demo, [summarize]).messages.find((m) => m.synthetic === 'summary')!.span!;
    expect(span[0]).toBeLessThanOrEqual(28);
    expect(span[1]).toBeGreaterThanOrEqual(28);
    const proj = projectTranscript(demo, [summarize, step([{ id: 'classify-tangents', options: { turns: [28] } }], { keepLast: 1, range: { kind: 'turns', from: 25, to: 38 } })]);
    const report = proj.report.find((r) => r.reducer === 'classify-tangents')!;
    expect(report.events).toBe(0);
    expect(report.notes.join(' ')).toContain(`turn 29 is already inside the summary of turns ${span[0] + 1}–${span[1] + 1}: nothing left to remove`);
    expect(report.notes.join(' ')).not.toContain('refused turn(s) 28');
  });
  it('feeds classify-tangents, which removes the chosen turns whole', () => {
    const turns = proposeTangents(log).map((x) => x.turn);
    const proj = projectTranscript(log, [step([{ id: 'classify-tangents', options: { turns } }], { keepLast: 1 })]);
    expect(proj.messages.some((m) => turns.includes(m.turn))).toBe(false);
    expect(proj.messages.filter((m) => m.turn === 3)).toHaveLength(4);
  });
});
