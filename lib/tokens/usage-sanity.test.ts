/**
 * Issue 31 item 3: a session whose recorded input is implausible next to its content is warned
 * about at import, and the replay falls back to our counts (the walk found 10 tokens a call for a
 * context of 1.5M, and Replay said "peak 10"). No corpus file with real usage trips it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { importBytes, importFile } from '../formats/import';
import { detect } from '../formats/detect';
import { sourceFromBytes } from '../read/source';
import { simulate } from '../simulate/calls';
import { REPLAY_POLICIES } from '../simulate/policies/replay';
import { replayRows } from '../simulate/table';
import { replayView } from '../engine/replay';
import { run as simulateCli } from '../cli/simulate';
import { run as inspectCli } from '../cli/inspect';
import { badUsageSession } from '../../tests/bad-usage';
import { makeClaudeCodeSession } from '../../bench/generate';
import { allCorpusFiles } from '../../tests/corpus';
import type { Transcript } from '../model/types';
import { IMPLAUSIBLE_FACTOR, IMPLAUSIBLE_USAGE, usagePlausibility } from './usage-sanity';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'usage-sanity-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const load = (text: string, name = 's.jsonl') => importBytes(name, new TextEncoder().encode(text)).transcript;

/** The generated session with every call's recorded prompt scaled (cache read carries the context). */
function scaledUsage(scale: number, every = 1): string {
  return (
    makeClaudeCodeSession(40)
      .trim()
      .split('\n')
      .map((line, i) => {
        const v = JSON.parse(line);
        const u = v.message?.usage;
        if (u && i % every === 0) v.message.usage = { ...u, input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: Math.max(1, Math.round(u.cache_read_input_tokens * scale)) };
        return JSON.stringify(v);
      })
      .join('\n') + '\n'
  );
}

async function cli(run: (args: string[]) => Promise<number>, text: string): Promise<{ code: number; out: string; err: string }> {
  const file = path.join(tmp, `s${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(file, text);
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  try {
    return { code: await run([file]), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('recorded usage implausible next to the content', () => {
  it('10 tokens a call: a warning at import naming a call, and the replay on our counts (not "peak 10")', () => {
    const log = load(badUsageSession());
    const p = usagePlausibility(log);
    expect(p.implausible).toBe(true);
    expect(p.low).toBe(p.judged);
    expect(p.worst!.recorded).toBe(10);
    const warning = log.warnings.find((w) => w.code === IMPLAUSIBLE_USAGE);
    expect(warning?.message).toMatch(/^The usage recorded in this file is implausible next to its content: \d+ of \d+ model calls record a prompt under a tenth of the context the file shows was sent \(message [\d,]+: 10 tokens recorded, [\d,]+ counted\)\. Replay and simulate use our counts instead of the recorded usage\.$/);

    const sim = simulate(log, REPLAY_POLICIES);
    expect(sim.usageIgnored).toBe(true);
    expect(sim.warnings[0]).toBe(warning!.message);
    // No recorded bill, no calibration from the bad usage: sizes are our counts.
    expect(sim.recorded).toBeUndefined();
    expect(sim.calibration.fromUsage).toBe(false);
    const rows = replayRows(sim);
    const peak = (id: string) => rows.find((r) => r.policy === id)!.peakContext;
    // Before: the "as recorded" replay sent exactly the recorded prompts, peak 10.
    expect(peak('recorded')).toBeGreaterThan(5_000);
    expect(peak('recorded')).toBe(peak('none'));
    // The Replay page's view carries the note.
    const view = replayView(log);
    expect(view.usageIgnored).toBe(true);
    expect(view.warnings).toContain(warning!.message);
  });

  it('the CLI says it: inspect lists the warning, simulate prints it and replays on our counts', async () => {
    const ins = await cli(inspectCli, badUsageSession());
    expect(ins.code).toBe(0);
    expect(ins.out).toContain(`${IMPLAUSIBLE_USAGE} ×1: The usage recorded in this file is implausible next to its content`);
    const sim = await cli(simulateCli, badUsageSession());
    expect(sim.code).toBe(0);
    expect(sim.out).toContain('warning: The usage recorded in this file is implausible next to its content');
  });

  it('plausible usage is trusted: as generated, scaled down 5×, or 1,000× down on a minority of calls', () => {
    for (const [text, what] of [
      [makeClaudeCodeSession(40), 'as generated'],
      [scaledUsage(1 / 5), 'scaled down 5×'],
      [scaledUsage(1 / 1000, 3), '1,000× down on one call in three'],
    ] as const) {
      const log = load(text);
      expect(usagePlausibility(log).implausible, what).toBe(false);
      expect(log.warnings.map((w) => w.code), what).not.toContain(IMPLAUSIBLE_USAGE);
      const sim = simulate(log, REPLAY_POLICIES.slice(0, 2));
      expect(sim.usageIgnored, what).toBeUndefined();
      expect(sim.recorded, what).toBeDefined();
    }
    // The same file 1,000× down on every call: every judged call under a tenth of our count.
    const low = usagePlausibility(load(scaledUsage(1 / 1000)));
    expect(low.implausible).toBe(true);
    expect(low.minRatio!).toBeLessThan(1 / IMPLAUSIBLE_FACTOR);
  });

  it('no corpus file with recorded usage trips it (every conversation of every file)', () => {
    const checked: Array<{ name: string; judged: number; minRatio?: number }> = [];
    for (const file of allCorpusFiles()) {
      const bytes = new Uint8Array(fs.readFileSync(file));
      const name = path.basename(file);
      // One SourceFile for every conversation of a container: it parses its document once (the
      // 200 conversations of tau-bench's 4 MB file each parsed it again: 16 s of CPU of this test's 19).
      const source = sourceFromBytes(name, bytes);
      let format;
      try {
        format = detect(source).format;
      } catch {
        continue; // not a transcript (notes, SSE chunks): the importer tests cover them
      }
      const conversations = format.listConversations?.(source).length ?? 1;
      for (let c = 0; c < conversations; c++) {
        let log: Transcript;
        try {
          log = importFile(source, conversations > 1 ? { conversation: c } : {}).transcript;
        } catch {
          continue;
        }
        if (log.usage.length === 0) continue;
        const p = usagePlausibility(log);
        expect(p.implausible, `${name} #${c}: ${JSON.stringify(p)}`).toBe(false);
        expect(log.warnings.map((w) => w.code), name).not.toContain(IMPLAUSIBLE_USAGE);
        checked.push({ name: `${name}#${c}`, judged: p.judged, ...(p.minRatio !== undefined && { minRatio: p.minRatio }) });
      }
    }
    // Real usage was judged (not skipped): Claude Code, Codex, Gemini CLI, OpenHands, Inspect.
    const judged = checked.filter((c) => c.judged > 0);
    expect(judged.length).toBeGreaterThanOrEqual(10);
    expect(judged.some((c) => c.name.startsWith('localpush_rollout'))).toBe(true);
    expect(judged.some((c) => c.name.startsWith('slopometry'))).toBe(true);
    // The corpus's lowest recorded / counted ratio stays far above the line.
    expect(Math.min(...judged.map((c) => c.minRatio!))).toBeGreaterThan(1);
  });
});
