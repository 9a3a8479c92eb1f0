/**
 * Every hostile case ends in a specific, located ImportError or in a usable, frozen, validated
 * transcript — never a TypeError / RangeError, never prototype pollution, never half-built output.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ImportError } from '../../lib/errors';
import { importBytes } from '../../lib/formats/import';
import { formatById } from '../../lib/formats/registry';
import { validatePairing } from '../../lib/model/pairing';
import type { Transcript } from '../../lib/model/types';
import { makeCases, type HostileCase } from './make-cases';
import { withThreadCpu } from '../cpu';

const cases = makeCases();

/** Errors about the file as a whole carry no line or path. */
const FILE_LEVEL = /^(empty:file|unsupported:format|malformed:zip|malformed:gzip|malformed:gzip-truncated|too-large:text)$/;

function isDeepFrozen(t: Transcript): boolean {
  if (!Object.isFrozen(t) || !Object.isFrozen(t.messages) || !Object.isFrozen(t.records)) return false;
  return t.messages.every((m) => Object.isFrozen(m) && Object.isFrozen(m.blocks) && m.blocks.every((b) => Object.isFrozen(b)));
}

function run(c: HostileCase): { transcript?: Transcript; error?: unknown } {
  try {
    return { transcript: importBytes(c.fileName, c.bytes(), c.format ? { format: c.format } : {}).transcript };
  } catch (error) {
    return { error };
  }
}

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted').toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
});

describe('hostile inputs', () => {
  it('has at least 30 cases with unique names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  for (const c of cases) {
    it(c.name, { timeout: (c.timeLimitMs ?? 20_000) * 4 + 30_000 }, () => {
      // CPU time, not wall time: on a shared machine (2 cores, many processes) wall time measures
      // the neighbours; a hang or a quadratic path still shows up as CPU.
      // This thread's CPU: the other test worker's does not count (process.cpuUsage would count it).
      const { value: { transcript, error }, ms } = withThreadCpu(() => run(c));
      expect(ms, 'CPU time to a result').toBeLessThan(c.timeLimitMs ?? 20_000);
      if (error !== undefined) {
        // Never a crash: only our typed error, with a place and an expectation.
        if (!(error instanceof ImportError)) throw new Error(`${c.name}: expected an ImportError, got ${(error as Error)?.name}: ${(error as Error)?.message}`);
        expect(error.where.file, 'error names the file').toBe(c.fileName);
        expect(error.message.length).toBeGreaterThan(10);
        // Located: a line or a JSON path, unless the error is about the file as a whole.
        if (!FILE_LEVEL.test(error.code)) expect(error.where.line ?? error.where.path, `${error.code} is located`).toBeDefined();
        if (c.expect.kind === 'import') throw new Error(`${c.name}: expected a usable import, got ${error.code}: ${error.message}`);
        if (c.expect.kind === 'error') {
          if (typeof c.expect.code === 'string') expect(error.code).toBe(c.expect.code);
          else expect(error.code).toMatch(c.expect.code);
          for (const w of c.expect.where ?? []) expect(error.where[w], `error located by ${w}`).toBeDefined();
          if (c.expect.path) expect(error.where.path).toBe(c.expect.path);
          if (c.expect.where?.includes('path') || c.expect.where?.includes('line')) expect(error.expected, 'says what was expected').toBeTruthy();
        }
        return;
      }
      const t = transcript!;
      if (c.expect.kind === 'error') throw new Error(`${c.name}: expected ${String(c.expect.code)}, but it imported as ${t.format} (${t.messages.length} messages)`);
      if (c.expect.kind === 'import' && c.expect.format) expect(t.format).toBe(c.expect.format);
      for (const code of c.expect.kind === 'import' ? c.expect.warnings ?? [] : []) expect(t.warnings.map((w) => w.code)).toContain(code);
      // Nothing half-built escapes: frozen, and every pairing problem is reported as a warning.
      expect(isDeepFrozen(t), 'deep-frozen transcript').toBe(true);
      expect(t.messages.length).toBeGreaterThan(0);
      const kinds = new Set(validatePairing(t.messages.filter((m) => !m.sidechain)).map((i) => i.kind));
      for (const k of kinds) expect(t.warnings.map((w) => w.code), `pairing issue ${k} reported`).toContain(`pairing:${k}`);
      t.messages.forEach((m, i) => expect(m.index).toBe(i));
      if (c.roundtrip) {
        const original = new TextDecoder().decode(c.bytes()).replace(/^\uFEFF/, '');
        const out = formatById(t.format)!.serialize(t).text;
        expect(out.length, 'export length').toBe(original.length);
        expect(out === original, 'byte-identical export').toBe(true);
      }
    });
  }
});
