import fs from 'node:fs';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { checkFixture, dumpTranscript } from './testing/fixture-check';
import { importBytes } from './import';
import { detect } from './detect';
import { inspectAiFormat } from './inspect-ai';
import { sourceFromBytes } from '../read/source';
import { fatalPairing, testProjection } from './traj-test-helpers';
import type { Transcript } from '../model/types';
import { withThreadCpu } from '../../tests/cpu';

const files = corpusFiles('inspect-ai');
const bytesOf = (f: string) => new Uint8Array(fs.readFileSync(f));

/**
 * checkFixture for zip archives (checkFixture compares text): snapshot of the dump, detection
 * under "unknown", export with no projection = the original archive bytes, the export re-imports
 * to the same dump, the log is frozen.
 */
function checkZipFixture(file: string, conversation = 0): Transcript {
  const bytes = bytesOf(file);
  const name = path.basename(file);
  const { transcript: t } = importBytes(name, bytes, { conversation });
  expect(t.format).toBe('inspect-ai');
  expect(t.messages.length).toBeGreaterThan(0);
  expect(dumpTranscript(t)).toMatchSnapshot();
  expect(detect(sourceFromBytes('unknown', bytes)).format.id).toBe('inspect-ai');
  const out = inspectAiFormat.serialize(t);
  expect(out.bytes).toBeDefined();
  expect(out.bytes!.length).toBe(bytes.length);
  expect(Buffer.from(out.bytes!).equals(Buffer.from(bytes))).toBe(true);
  // text = the sample entry, byte for byte
  const entry = (t.extra as { entry: string }).entry;
  expect(out.text).toBe(new TextDecoder().decode(unzipSync(bytes, { filter: (f) => f.name === entry })[entry]));
  const back = importBytes(name, out.bytes!, { conversation }).transcript;
  expect(dumpTranscript(back)).toBe(dumpTranscript(t));
  expect(Object.isFrozen(t.messages[0].blocks)).toBe(true);
  return t;
}

describe('inspect-ai corpus', () => {
  for (const f of files) {
    if (f.endsWith('.eval')) it(path.basename(f), () => checkZipFixture(f));
    else it(path.basename(f), () => checkFixture(f, expect, { format: 'inspect-ai' }));
  }
  it('inspect_popularity.eval sample 9 (last)', () => checkZipFixture(files.find((f) => f.endsWith('popularity.eval'))!, 9));
});

describe('inspect-ai semantics', () => {
  const browser = files.find((f) => f.endsWith('browser_gpt4o-mini.json'))!;
  it('pairs calls and results, reads per-call usage from model events and tools from the first call', () => {
    const t = importBytes('b.json', bytesOf(browser)).transcript;
    expect(fatalPairing(t)).toEqual([]);
    expect(t.model).toBe('openai/gpt-4o-mini');
    expect(t.usage.length).toBe(5);
    expect(t.usage[0]).toMatchObject({ messageIndex: 1, input: 1124, output: 23 });
    expect(t.tools.length).toBeGreaterThan(0);
  });

  it('lists samples of a .eval archive in id order', () => {
    const list = inspectAiFormat.listConversations!(sourceFromBytes('p.eval', bytesOf(files.find((f) => f.endsWith('popularity.eval'))!)));
    expect(list.map((c) => c.title)).toEqual(Array.from({ length: 10 }, (_, i) => `sample ${i + 1} epoch 1`));
    expect(list.every((c) => c.messages === 3)).toBe(true);
  });

  it('attaches usage by message order when the log has no message ids (Inspect 2025-02 .eval)', () => {
    const popularity = bytesOf(files.find((f) => f.endsWith('popularity.eval'))!);
    const t = importBytes('p.eval', popularity, { conversation: 4 }).transcript;
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    // samples/5_epoch_1.json: one model event, output.usage {input_tokens: 63, output_tokens: 2}, no ids anywhere.
    expect(t.usage).toEqual([expect.objectContaining({ messageIndex: 2, input: 63, output: 2, cacheRead: 0, cacheWrite: 0 })]);
  });

  it('reads ContentReasoning (signature, redacted) and compaction events', () => {
    const log = {
      version: 2,
      status: 'success',
      eval: { task: 't', model: 'anthropic/claude-sonnet-4' },
      samples: [
        {
          id: 1,
          epoch: 1,
          messages: [
            { id: 'u', role: 'user', content: 'hi', source: 'input' },
            { id: 'a', role: 'assistant', content: [{ type: 'reasoning', reasoning: 'think', signature: 'SIG' }, { type: 'reasoning', reasoning: 'ENC', redacted: true }, { type: 'text', text: 'hello' }], tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'attachment://h1' }, type: 'function' }] },
            { id: 't', role: 'tool', content: '', tool_call_id: 'c1', function: 'bash', error: { type: 'timeout', message: 'timed out' } },
          ],
          events: [
            { event: 'model', model: 'anthropic/claude-sonnet-4', output: { choices: [{ message: { id: 'a' } }], usage: { input_tokens: 10, output_tokens: 3, input_tokens_cache_read: 100, reasoning_tokens: 2 } } },
            { event: 'compaction', type: 'summary', tokens_before: 1000, tokens_after: 200, source: 'auto' },
          ],
          attachments: { h1: 'ls -la' },
        },
      ],
    };
    const t = importBytes('l.json', new TextEncoder().encode(JSON.stringify(log, null, 2))).transcript;
    const a = t.messages[1].blocks;
    expect(a[0]).toMatchObject({ kind: 'reasoning', text: 'think', opaque: 'SIG' });
    expect(a[1]).toMatchObject({ kind: 'reasoning', redacted: true, opaque: 'ENC' });
    // attachment:// resolved for display, the record keeps the reference
    expect(a[3]).toMatchObject({ kind: 'tool_call', name: 'bash', input: { cmd: 'ls -la' } });
    expect(t.records[1].text).toContain('attachment://h1');
    expect(t.messages[2].blocks[0]).toMatchObject({ kind: 'tool_result', isError: true, content: 'timed out' });
    expect(t.usage).toEqual([{ messageIndex: 1, model: 'anthropic/claude-sonnet-4', input: 10, cacheRead: 100, cacheWrite: 0, output: 3, reasoning: 2 }]);
    expect(t.markers[0]).toMatchObject({ source: 'inspect-compaction', atMessage: 2, trigger: 'summary', tokensBefore: 1000, tokensAfter: 200 });
    // stripping reasoning drops the part with its signature, keeps text and the call
    const p = testProjection(t, { stripReasoning: true });
    const out = inspectAiFormat.serialize(t, p).text;
    expect(out).not.toContain('SIG');
    expect(out).toContain('attachment://h1');
    const back = importBytes('l.json', new TextEncoder().encode(out)).transcript;
    expect(back.messages[1].blocks.map((b) => b.kind)).toEqual(['text', 'tool_call']);
  });

  for (const f of files) {
    it(`exports a projection of ${path.basename(f)} (stubs, summary + compaction event) that re-imports paired`, () => {
      const t = importBytes(path.basename(f), bytesOf(f)).transcript;
      const stubbed = testProjection(t, { stubResults: '[result expired]' });
      const stubOut = inspectAiFormat.serialize(t, stubbed);
      const stubBack = importBytes(path.basename(f), stubOut.bytes ?? new TextEncoder().encode(stubOut.text)).transcript;
      expect(stubBack.messages.length).toBe(t.messages.length);
      expect(fatalPairing(stubBack)).toEqual([]);
      for (const b of stubBack.messages.flatMap((m) => m.blocks)) if (b.kind === 'tool_result') expect(b.content).toBe('[result expired]');
      const span: [number, number] = t.turnCount > 1 ? [1, 1] : [0, 0];
      const p = testProjection(t, { summarizeTurns: span, summaryText: 'SUMMARY-MARKER' });
      const out = inspectAiFormat.serialize(t, p);
      const fileBytes = out.bytes ?? new TextEncoder().encode(out.text);
      const back = importBytes(path.basename(f), fileBytes).transcript;
      expect(back.messages.length).toBe(p.messages.length);
      expect(fatalPairing(back)).toEqual([]);
      expect(back.messages.some((m) => m.blocks.some((b) => b.kind === 'text' && b.text === 'SUMMARY-MARKER'))).toBe(true);
      expect(back.markers.some((m) => m.source === 'inspect-compaction')).toBe(true);
      if (out.bytes) {
        // every other archive entry is carried over unchanged
        const before = unzipSync(bytesOf(f));
        const after = unzipSync(out.bytes);
        expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
        expect(Buffer.from(after['header.json']).equals(Buffer.from(before['header.json']))).toBe(true);
      }
    });
  }

  it('refuses a .eval whose entry declares a 2 GB expansion, before inflating', () => {
    const zip = zipSync({ 'header.json': new TextEncoder().encode('{"version":2,"eval":{}}'), 'samples/1_epoch_1.json': new Uint8Array(2_000_000) });
    // Patch the declared uncompressed size of the sample entry (local header + central directory) to 2 GB.
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let i = 0; i + 4 <= zip.length; i++) {
      const sig = view.getUint32(i, true);
      if (sig === 0x04034b50 && view.getUint32(i + 22, true) === 2_000_000) view.setUint32(i + 22, 2_000_000_000, true);
      if (sig === 0x02014b50 && view.getUint32(i + 24, true) === 2_000_000) view.setUint32(i + 24, 2_000_000_000, true);
    }
    const { ms } = withThreadCpu(() => expect(() => importBytes('bomb.eval', zip)).toThrow(expect.objectContaining({ code: 'too-large:zip' })));
    expect(ms).toBeLessThan(2000);
  });
});
