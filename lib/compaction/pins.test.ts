import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { agentEvents } from '../ledger/agent';
import { ledgerChecks } from '../ledger/checks';
import { ledgerOf } from '../ledger';
import { ConfigError, parseCompactionConfig, planToStep } from './config';
import { matchedMessages, patternMatcher, pinnedMessages, pinsLostIn, type Pin } from './pins';
import { projectTranscript } from './project';

const slop = () => {
  const f = corpusFiles('claude-code').find((x) => path.basename(x).startsWith('slopometry'))!;
  return importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
};

describe('pins in configs: pin = […]', () => {
  it('JP TOML and sven YAML carry their patterns to the step', () => {
    const jp = parseCompactionConfig('c.toml', '[conversation.compaction]\nstrategy = "emergency"\npin = ["NEVER use sudo", "/^- Always run .*tests/m"]\n');
    expect(jp.pins).toEqual(['NEVER use sudo', '/^- Always run .*tests/m']);
    expect(jp.warnings.join(' ')).not.toMatch(/unknown key.*pin/);
    expect(planToStep(jp).pins).toEqual([
      { kind: 'pattern', pattern: 'NEVER use sudo' },
      { kind: 'pattern', pattern: '/^- Always run .*tests/m' },
    ]);
    const sven = parseCompactionConfig('c.yaml', 'agent:\n  compaction_threshold: 0.8\n  pin:\n    - "AGENTS.md: use pnpm"\n');
    expect(planToStep(sven).pins).toEqual([{ kind: 'pattern', pattern: 'AGENTS.md: use pnpm' }]);
  });

  it('a bad pin is an error naming the key', () => {
    expect(() => parseCompactionConfig('c.toml', '[conversation.compaction]\npin = ["/(/"]\n')).toThrow(ConfigError);
    expect(() => parseCompactionConfig('c.toml', '[conversation.compaction]\npin = ["/(/"]\n')).toThrow(/conversation\.compaction\.pin\.0.*regular expression/);
    expect(() => parseCompactionConfig('c.yaml', 'agent:\n  pin: [""]\n')).toThrow(/agent\.pin/);
  });
});

describe('pins on a real session', () => {
  it('patterns match case-insensitively; /re/ is a regular expression; a tool result pins its call', () => {
    expect(patternMatcher('never USE sudo')('Rule: NEVER use sudo.')).toBe(true);
    expect(patternMatcher('/^\\d+ passed$/m')('x\n173 passed\ny')).toBe(true);
    const log = slop();
    const result = log.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result')!;
    const set = pinnedMessages(log, [{ kind: 'block', blockId: result.id }]);
    const call = log.messages.findIndex((m) => m.blocks.some((b) => b.kind === 'tool_call' && result.kind === 'tool_result' && b.callId === result.callId));
    expect(set.has(call)).toBe(true);
    expect(set.size).toBe(2);
  });

  it('an emergency step at a tight budget drops everything it may, but not the pinned messages', () => {
    const log = slop();
    const pins: Pin[] = [{ kind: 'pattern', pattern: 'uv tool install' }];
    const hits = matchedMessages(log, pins[0]);
    expect(hits.length).toBeGreaterThan(0);
    const step = { id: 'e', range: { kind: 'all-but-last' as const, n: 1 }, reducers: [{ id: 'emergency' as const, options: { keepN: 0, untilFits: false } }], keepLast: 1, tail: 'turns' as const, budget: 5000, createdAt: '2026-01-01T00:00:00Z' };
    const without = projectTranscript(log, [step], { baseline: 'log' });
    const withPin = projectTranscript(log, [step], { baseline: 'log', pins });
    // The plan does remove those messages without the pin…
    expect(hits.some((i) => log.messages[i].blocks.some((b) => without.fates[b.id]))).toBe(true);
    // …and leaves every block of them, and of their pairs, with the pin.
    for (const i of pinnedMessages(log, pins)) for (const b of log.messages[i].blocks) expect(withPin.fates[b.id]).toBeUndefined();
    expect(withPin.tokens.after.total).toBeLessThan(withPin.tokens.before.total / 2);
  });

  it('the same log projected without, then with a pin: the second projection honours it (no cached window of the first)', () => {
    const log = slop();
    const step = { id: 's', range: { kind: 'turns' as const, from: 0, to: log.turnCount - 1 }, reducers: [{ id: 'strip-tool-results' as const }], keepLast: 0, createdAt: '' };
    const plain = projectTranscript(log, [step]);
    const result = log.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result' && plain.fates[b.id]?.kind === 'stubbed')!;
    expect(projectTranscript(log, [step], { pins: [{ kind: 'block', blockId: result.id }] }).fates[result.id]).toBeUndefined();
    expect(projectTranscript(log, [step]).fates[result.id]).toMatchObject({ kind: 'stubbed' });
  });

  it('the ledger flags Claude Code\'s own compaction that lost a pinned pattern, and not one its summary kept', () => {
    const log = slop();
    const pins: Pin[] = [
      { kind: 'pattern', pattern: 'Halstead' }, // in the 217 messages it replaced, absent from its summary
      { kind: 'pattern', pattern: 'uv tool install' }, // in them, and in the summary
      { kind: 'pattern', pattern: 'zzz-not-in-the-session' },
    ];
    const [e] = agentEvents(log, ledgerChecks(pins));
    expect(e.pinsLost).toEqual(['pattern Halstead']);
    expect(e.summary!.toLowerCase()).not.toContain('halstead');
    expect(e.summary).toContain('uv tool install');
    // Without pins, nothing is flagged.
    expect(ledgerOf(log).events[0].pinsLost).toEqual([]);
    // A pinned tool result in the span: its output is not in the summary → lost; the first prompt, quoted by the summary, is kept.
    const result = log.messages.slice(0, 217).flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result' && b.content.length > 500)!;
    const first = log.messages.find((m) => m.role === 'user' && !m.meta && m.blocks.some((b) => b.kind === 'text'))!;
    expect(pinsLostIn(log, [{ kind: 'block', blockId: result.id, label: 'a test run' }, { kind: 'message', messageId: first.id, label: 'the first prompt' }], [0, 217], e.summary!)).toEqual(['a test run']);
  });
});
