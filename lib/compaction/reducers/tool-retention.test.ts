import { describe, expect, it } from 'vitest';
import { filler, makeTranscript, type TurnSpec } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { CLEARED_TO_SAVE_CONTEXT, RESULT_EXPIRED } from './tool-retention';
import { isStub } from './util';

const turns: TurnSpec[] = Array.from({ length: 8 }, (_, i) => ({
  user: `turn ${i}`,
  tools: [
    { name: 'search', input: { q: `q${i}` }, output: filler(100, `s${i}`) },
    { name: 'weather', input: { city: 'Paris' }, output: `sunny ${i} ` + filler(30) },
  ],
  answer: 'ok',
}));
const log = makeTranscript(turns);
const contents = (p: ReturnType<typeof projectTranscript>, name: string) =>
  p.messages.flatMap((m) => m.blocks).flatMap((b) => (b.kind === 'tool_result' && b.name === name ? [b.content === RESULT_EXPIRED ? 'x' : 'full'] : []));

describe('tool-retention', () => {
  it('age: results older than K turns expire to [result expired], pairs stay', () => {
    const p = projectTranscript(log, [step([{ id: 'tool-retention', options: { mode: 'age', turns: 3 } }], { keepLast: 0 })]);
    // last turn is 7: turns 0..4 have age ≥ 3.
    expect(contents(p, 'search')).toEqual(['x', 'x', 'x', 'x', 'x', 'full', 'full', 'full']);
    expect(p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call')).toHaveLength(16);
  });
  it('count per tool, with per-tool overrides and never_evict', () => {
    const p = projectTranscript(log, [
      step([{ id: 'tool-retention', options: { mode: 'count', keep: 2, perTool: { weather: { mode: 'count', keep: 1 } }, neverEvict: [] } }], { keepLast: 0 }),
    ]);
    expect(contents(p, 'search')).toEqual(['x', 'x', 'x', 'x', 'x', 'x', 'full', 'full']);
    expect(contents(p, 'weather')).toEqual(['x', 'x', 'x', 'x', 'x', 'x', 'x', 'full']);
    const never = projectTranscript(log, [step([{ id: 'tool-retention', options: { mode: 'count', keep: 2, neverEvict: ['weather'] } }], { keepLast: 0 })]);
    expect(contents(never, 'weather').every((c) => c === 'full')).toBe(true);
  });
  it('count across all tools (Anthropic clear_tool_uses keep 3) with protected turns counted as newest', () => {
    const p = projectTranscript(log, [step([{ id: 'tool-retention', options: { mode: 'count', keep: 3, scope: 'all' } }], { keepLast: 1 })]);
    const all = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(all.filter((b) => b.kind === 'tool_result' && b.content !== RESULT_EXPIRED)).toHaveLength(3);
  });
  it('tokens mode (OpenCode prune): protect the newest N tool tokens, only if enough is reclaimable', () => {
    const p = projectTranscript(log, [step([{ id: 'tool-retention', options: { mode: 'tokens', protectTokens: 400, minReclaim: 100 } }], { keepLast: 0 })]);
    expect(contents(p, 'search').filter((c) => c === 'full').length).toBeGreaterThanOrEqual(2);
    expect(contents(p, 'search')[0]).toBe('x');
    const none = projectTranscript(log, [step([{ id: 'tool-retention', options: { mode: 'tokens', protectTokens: 400, minReclaim: 1e9 } }], { keepLast: 0 })]);
    expect(none.report[0].events).toBe(0);
    expect(none.report[0].notes[0]).toContain('reclaimable');
  });
  it("a result cleared with Anthropic's placeholder is a stub: a second clear leaves it alone", () => {
    const clear = () => step([{ id: 'tool-retention', options: { mode: 'count', keep: 3, scope: 'all', useHints: false, placeholder: CLEARED_TO_SAVE_CONTEXT } }], { keepLast: 0 });
    const once = projectTranscript(log, [clear()]);
    expect(once.report[0].events).toBe(13);
    expect(isStub(CLEARED_TO_SAVE_CONTEXT)).toBe(true);
    const twice = projectTranscript(log, [clear(), clear()]);
    expect(twice.report[1].events).toBe(0);
    expect(twice.messages).toEqual(once.messages);
  });
});
