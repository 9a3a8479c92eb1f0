import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCorpusFiles } from '../../tests/corpus';
import { ExportError } from '../errors';
import { importBytes } from './import';
import { conversionTargets, convertTranscript } from './convert';
import { formats } from './registry';
import { fatalPairing, testProjection } from './traj-test-helpers';
import type { Transcript } from '../model/types';

const corpus = allCorpusFiles().filter((f) => path.basename(f) !== 'SOURCES.md');
// Targets are whatever the registry can write today (formats with fromMessages).
const targets = conversionTargets().map((t) => t.id);

function load(f: string): Transcript {
  return importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
}

/** User-side text of the main context (typed text and summaries the source holds). */
function userTexts(t: Transcript): string[] {
  const out: string[] = [];
  for (const m of t.messages) {
    if (m.sidechain || m.role !== 'user') continue;
    for (const b of m.blocks) if ((b.kind === 'text' || b.kind === 'summary') && b.text.trim() !== '') out.push(b.text.trim());
  }
  return out;
}

/**
 * Characters of the source's user text that are found, verbatim, in the converted file's user
 * messages. Targets may add text (placeholders, attachments or orphan results written as text),
 * so the measure is "every source character is still there", not equality of totals.
 */
function preservedUserChars(source: Transcript, back: Transcript): { before: number; preserved: number } {
  const hay = userTexts(back).join('\n');
  let before = 0;
  let preserved = 0;
  for (const s of userTexts(source)) {
    before += s.length;
    if (hay.includes(s)) preserved += s.length;
  }
  return { before, preserved };
}

describe('conversion targets', () => {
  it('lists the API formats that have a converter', () => {
    expect(targets.length).toBeGreaterThan(0);
    expect(targets).toContain('openai-chat');
    for (const id of targets) expect(typeof formats.find((f) => f.id === id)!.fromMessages).toBe('function');
    // Printed once so the run shows which targets existed.
    console.info(`conversion targets: ${targets.join(', ')}`);
  });

  it('refuses a target without a converter, and an unknown one', () => {
    const t = load(corpus.find((f) => f.endsWith('swe-agent_function_calling_simple_demo.traj'))!);
    expect(() => convertTranscript(t, 'swe-agent')).toThrow(ExportError);
    expect(() => convertTranscript(t, 'no-such-format')).toThrow(/Unknown format/);
  });
});

describe.each(corpus.map((f) => [path.basename(f), f] as const))('convert %s', (_name, file) => {
  it.each(targets)('→ %s: converts, re-imports, pairs, keeps user text', (target) => {
    const t = load(file);
    const r = convertTranscript(t, target);
    const back = importBytes(r.fileName, r.bytes ?? new TextEncoder().encode(r.text), { format: target }).transcript;
    expect(back.format).toBe(target);
    expect(fatalPairing(back)).toEqual([]);
    const { before, preserved } = preservedUserChars(t, back);
    expect(preserved).toBe(before);
  });
});

describe('convert a projection', () => {
  it.each(targets)('a summarized, stubbed SWE-agent run → %s', (target) => {
    const t = load(corpus.find((f) => f.endsWith('marshmallow-1867_function_calling.traj'))!);
    const p = testProjection(t, { stubResults: '[result expired]' });
    const r = convertTranscript(t, target, p);
    const back = importBytes(r.fileName, r.bytes ?? new TextEncoder().encode(r.text), { format: target }).transcript;
    expect(fatalPairing(back)).toEqual([]);
    const results = back.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(results.length).toBe(13);
    expect(results.every((b) => b.kind === 'tool_result' && b.content.includes('[result expired]'))).toBe(true);
    // reused call ids of the source are made unique and safe for the target
    const ids = back.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').map((b) => (b.kind === 'tool_call' ? b.callId : ''));
    expect(new Set(ids).size).toBe(13);
    expect(ids.every((id) => /^[A-Za-z0-9_-]+$/.test(id))).toBe(true);
  });

  it('reports reasoning signatures it cannot carry', () => {
    const log = {
      version: 2,
      eval: { task: 't', model: 'anthropic/claude' },
      samples: [{ id: 1, epoch: 1, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'reasoning', reasoning: 'r', signature: 'SIG' }, { type: 'text', text: 'a' }] }], events: [] }],
    };
    const t = importBytes('l.json', new TextEncoder().encode(JSON.stringify(log))).transcript;
    const r = convertTranscript(t, 'openai-chat');
    expect(r.dropped.join('\n')).toMatch(/reasoning/);
    expect(r.text).not.toContain('SIG');
  });
});

describe('signed reasoning is replayed only to the provider that signed it (the source format decides, not the model name)', () => {
  const signed: Array<{ family: string; file: string }> = [
    { family: 'anthropic-messages', file: 'vercel-ai_anthropic-reasoning-high.1.json' },
    { family: 'openai-responses', file: 'vercel-ai_openai-reasoning-encrypted-content.1.json' },
    { family: 'gemini-api', file: 'vercel-ai_google-reasoning-gemini3.json' },
  ];
  const signedTargets = ['anthropic-messages', 'openai-responses', 'gemini-api'];
  const opaqueReasoning = (t: Transcript) => t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'reasoning' && !!b.opaque).length;
  for (const { family, file } of signed)
    it(`${family} → each API target, whatever the model is named`, () => {
      const t = load(corpus.find((f) => f.endsWith(`${family}/${file}`))!);
      expect(t.format).toBe(family);
      const source = opaqueReasoning(t);
      expect(source).toBeGreaterThan(0);
      // The model name misleads (another provider's, or none): the format still says who signed.
      for (const model of [t.model, undefined, 'gpt-5', 'claude-sonnet-4-5', 'gemini-2.5-pro'])
        for (const target of signedTargets) {
          const r = convertTranscript({ ...t, model } as Transcript, target);
          const back = importBytes(r.fileName, r.bytes ?? new TextEncoder().encode(r.text), { format: target }).transcript;
          expect(opaqueReasoning(back), `${family} (model ${model}) → ${target}`).toBe(target === family ? source : 0);
          if (target !== family) expect(r.dropped.join('\n')).toMatch(/reasoning/);
        }
    });
});

describe('fromMessages: sourceFormat over the model-name guess', () => {
  it('a format that names no signer (or none given) falls back to the model name', () => {
    const t = load(corpus.find((f) => f.endsWith('openai-responses/vercel-ai_openai-reasoning-encrypted-content.1.json'))!);
    const target = formats.find((x) => x.id === 'openai-responses')!;
    const base = { messages: t.messages, tools: t.tools, title: t.title, baseName: 'x' };
    const encrypted = (input: Parameters<NonNullable<typeof target.fromMessages>>[0]) => target.fromMessages!(input).text.includes('encrypted_content');
    expect(encrypted({ ...base, model: 'gpt-5' })).toBe(true);
    expect(encrypted({ ...base, model: 'claude-sonnet-4-5' })).toBe(false);
    expect(encrypted({ ...base, model: 'claude-sonnet-4-5', sourceFormat: 'openai-responses' })).toBe(true);
    expect(encrypted({ ...base, model: 'gpt-5', sourceFormat: 'anthropic-messages' })).toBe(false);
    expect(encrypted({ ...base, model: 'gpt-5', sourceFormat: 'openai-chat' })).toBe(true);
  });
});
