import { describe, expect, it } from 'vitest';
import { makeTranscript } from './testing/make';
import { proposeTangents } from './tangents';
import { projectTranscript } from './project';
import { step } from './testing/steps';

const log = makeTranscript([
  { user: 'Implement caching in src/cache.ts', tools: [{ name: 'Read', input: { file_path: 'src/cache.ts' }, output: 'export {}' }], answer: 'ok' },
  { user: 'btw what is the capital of France?', answer: 'Paris' },
  { user: 'check the docs', tools: [{ name: 'WebFetch', input: { url: 'https://weather.example.com/today' }, output: 'sunny' }], answer: 'sunny' },
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
  it('feeds classify-tangents, which removes the chosen turns whole', () => {
    const turns = proposeTangents(log).map((x) => x.turn);
    const proj = projectTranscript(log, [step([{ id: 'classify-tangents', options: { turns } }], { keepLast: 1 })]);
    expect(proj.messages.some((m) => turns.includes(m.turn))).toBe(false);
    expect(proj.messages.filter((m) => m.turn === 3)).toHaveLength(4);
  });
});
