/**
 * Pins (issue 26 §4), property-based: whatever the transcript, the plan and the budget, no
 * reducer — every one of them, summaries, emergency and auto included — touches a pinned message,
 * a pinned tool result (nor its call) or a message a pinned pattern matches. A pinned message is
 * in the projection as the log's very own blocks (same objects), and none of its blocks has a fate.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectTranscript } from '../../lib/compaction/project';
import { matchedMessages, pinnedMessages, type Pin } from '../../lib/compaction/pins';
import { makeTranscript, type ToolStep, type TurnSpec } from '../../lib/compaction/testing/make';
import type { ReducerId, ReducerSpec, Step } from '../../lib/compaction/types';
import type { Transcript } from '../../lib/model/types';

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'error:', 'FAILED', 'src/a.ts', 'npm test', '3 passed', 'NEVER use sudo');
const text = (max: number) => fc.array(word, { maxLength: max }).map((w) => w.join(' '));

const toolStep: fc.Arbitrary<ToolStep> = fc.record({
  name: fc.constantFrom('Read', 'Bash', 'Grep', 'Edit', 'Task'),
  input: fc.oneof(fc.record({ file_path: fc.constantFrom('/a.ts', '/b.ts') }), fc.record({ command: fc.constantFrom('ls', 'npm test', 'cat x') })),
  // Long enough sometimes that a summary is smaller than what it replaces.
  output: fc.tuple(text(60), fc.integer({ min: 0, max: 150 })).map(([t, n]) => `${t}\n${'lorem ipsum dolor sit amet '.repeat(n)}`),
  isError: fc.boolean(),
});
const turn: fc.Arbitrary<TurnSpec> = fc.record({
  user: text(12).map((s) => 'u ' + s),
  reasoning: fc.option(text(20), { nil: undefined }),
  signed: fc.boolean(),
  tools: fc.array(toolStep, { maxLength: 3 }),
  answer: fc.option(text(10), { nil: undefined }),
  attachment: fc.option(fc.constant({ mediaType: 'application/pdf', name: 'spec.pdf', bytes: 4000, text: 'NEVER use sudo. '.repeat(30) }), { nil: undefined }),
});
const transcript: fc.Arbitrary<Transcript> = fc.array(turn, { minLength: 2, maxLength: 7 }).map((turns) => makeTranscript(turns, { system: 'You are a coding agent. NEVER use sudo.', tools: [{ name: 'Read' }, { name: 'Bash' }] }));

/** Every strategy, emergency and auto included (the registry's ids, plus auto). */
const STRATEGIES: ReducerId[] = ['strip-reasoning', 'strip-tool-results', 'tool-retention', 'dedup-tools', 'tool-hints', 'strip-attachments', 'prune-tools', 'truncate-tool-results', 'sliding-window', 'summarize', 'classify-tangents', 'emergency', 'auto'];

const spec = (id: ReducerId): fc.Arbitrary<ReducerSpec> => {
  switch (id) {
    case 'tool-retention':
      return fc.record({ mode: fc.constantFrom('age', 'count'), turns: fc.integer({ min: 0, max: 3 }), keep: fc.integer({ min: 0, max: 2 }), untilFits: fc.boolean() }).map((options) => ({ id, options }));
    case 'tool-hints':
      return fc.record({ request: fc.constantFrom('keep', 'strip'), response: fc.constantFrom('keep', 'strip', 'remove') }).map((options) => ({ id, options }));
    case 'truncate-tool-results':
      return fc.record({ cap: fc.integer({ min: 1, max: 40 }), untilFits: fc.boolean() }).map((options) => ({ id, options }));
    case 'sliding-window':
      return fc.record({ maxTurns: fc.integer({ min: 0, max: 2 }), untilFits: fc.boolean() }).map((options) => ({ id, options }));
    case 'summarize':
      return fc.record({ untilFits: fc.boolean(), onFailure: fc.constantFrom('emergency', 'leave') }).map((options) => ({ id, options }));
    case 'classify-tangents':
      return fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 }).map((turns) => ({ id, options: { turns } }));
    case 'emergency':
      return fc.record({ keepN: fc.integer({ min: 0, max: 3 }), untilFits: fc.boolean(), dropUserMessages: fc.boolean() }).map((options) => ({ id, options }));
    case 'auto':
      return fc.record({ threshold: fc.constantFrom(1, 0.5), summarize: fc.boolean() }).map((options) => ({ id, options }));
    default:
      return fc.constant({ id, options: { untilFits: false } });
  }
};

/** Pins drawn from the log itself: a message, a tool result, or a pattern. */
const pinsFor = (log: Transcript): fc.Arbitrary<Pin[]> => {
  const msgs = log.messages.filter((m) => m.role !== 'system');
  const results = log.messages.flatMap((m) => m.blocks.filter((b) => b.kind === 'tool_result'));
  const pin: fc.Arbitrary<Pin> = fc.oneof(
    fc.constantFrom(...msgs).map((m): Pin => ({ kind: 'message', messageId: m.id })),
    ...(results.length ? [fc.constantFrom(...results).map((b): Pin => ({ kind: 'block', blockId: b.id }))] : []),
    fc.constantFrom('NEVER use sudo', 'npm test', '/3 passed|FAILED/', 'src/a.ts').map((pattern): Pin => ({ kind: 'pattern', pattern })),
  );
  return fc.array(pin, { minLength: 1, maxLength: 3 });
};

function checkPinned(log: Transcript, pins: readonly Pin[], steps: Step[], via: 'option' | 'step') {
  const projection = projectTranscript(log, via === 'step' ? steps.map((s) => ({ ...s, pins: [...pins] })) : steps, via === 'option' ? { pins } : {});
  const pinned = pinnedMessages(log, pins);
  // Every directly matched message is in the set (and their pairs with them).
  for (const p of pins) for (const i of matchedMessages(log, p)) expect(pinned.has(i)).toBe(true);
  const bySource = new Map(projection.messages.filter((m) => m.sourceId).map((m) => [m.sourceId!, m]));
  for (const i of pinned) {
    const m = log.messages[i];
    for (const b of m.blocks) expect(projection.fates[b.id], `${b.id} of pinned ${m.id}`).toBeUndefined();
    const p = bySource.get(m.id);
    expect(p, `pinned ${m.id} is in the context`).toBeDefined();
    expect(p!.blocks.length).toBe(m.blocks.length);
    p!.blocks.forEach((b, k) => expect(b).toBe(m.blocks[k]));
  }
}

describe('pins: no reducer, summary or emergency step touches a pinned item', () => {
  for (const id of STRATEGIES) {
    it(`${id}: pinned messages, tool results and patterns survive untouched, whatever the budget`, () => {
      fc.assert(
        fc.property(
          transcript.chain((log) => fc.tuple(fc.constant(log), pinsFor(log), spec(id), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 1 }), fc.constantFrom<'option' | 'step'>('option', 'step'))),
          ([log, pins, reducer, budget, keepLast, via]) => {
            const step: Step = { id: 's1', range: { kind: 'after-last-compaction' }, reducers: [reducer], keepLast, budget, createdAt: '2026-01-01T00:00:00Z' };
            checkPinned(log, pins, [step], via);
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it('two steps (a summary, then emergency) keep a pin through both', () => {
    fc.assert(
      fc.property(transcript.chain((log) => fc.tuple(fc.constant(log), pinsFor(log))), ([log, pins]) => {
        const steps: Step[] = [
          { id: 'a', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'summarize', options: { untilFits: true } }], keepLast: 0, budget: 20, createdAt: '2026-01-01T00:00:00Z' },
          { id: 'b', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'emergency', options: { keepN: 0, untilFits: true, dropUserMessages: true } }], keepLast: 0, budget: 1, createdAt: '2026-01-01T00:00:00Z' },
        ];
        checkPinned(log, pins, steps, 'option');
      }),
      { numRuns: 200 },
    );
  });

  it('without the pin, the same plan does touch the message (the property can fail)', () => {
    const log = makeTranscript([
      { user: 'u NEVER use sudo', tools: [{ name: 'Bash', input: { command: 'npm test' }, output: 'FAILED 3 passed '.repeat(40) }] },
      { user: 'u next', answer: 'ok' },
      { user: 'u last', answer: 'done' },
    ]);
    const target = log.messages.find((m) => m.blocks.some((b) => b.kind === 'text' && b.text.includes('sudo')))!;
    for (const reducer of [{ id: 'emergency' as const, options: { keepN: 0, untilFits: false, dropUserMessages: true } }, { id: 'sliding-window' as const, options: { maxTurns: 0 } }]) {
      const step: Step = { id: 's', range: { kind: 'after-last-compaction' }, reducers: [reducer], keepLast: 0, budget: 1000, createdAt: '2026-01-01T00:00:00Z' };
      expect(projectTranscript(log, [step]).fates[target.blocks[0].id], reducer.id).toMatchObject({ kind: 'removed' });
      expect(projectTranscript(log, [step], { pins: [{ kind: 'pattern', pattern: 'never use SUDO' }] }).fates[target.blocks[0].id], reducer.id).toBeUndefined();
    }
  });
});
