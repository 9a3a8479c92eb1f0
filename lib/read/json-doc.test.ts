import { describe, expect, it } from 'vitest';
import { ImportError } from '../errors';
import { depthExceededAt, MAX_JSON_DEPTH, parseJsonText, readJsonDocument, stringifyLike } from './json-doc';
import { readJsonl } from './jsonl';
import { sourceFromText } from './source';
import { importBytes } from '../formats/import';
import { cpuPerRun } from '../../tests/cpu';

function codeOf(fn: () => unknown): { code: string; line?: number } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return { code: (e as ImportError).code, line: (e as ImportError).where.line };
  }
  throw new Error('expected an ImportError');
}

describe('nesting depth cap', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('counts structure, not brackets inside strings', () => {
    expect(depthExceededAt(deep(MAX_JSON_DEPTH))).toBe(-1);
    expect(depthExceededAt(deep(MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH);
    expect(depthExceededAt(JSON.stringify({ s: '['.repeat(5000) + '\\"{{{' }))).toBe(-1);
  });

  it('a hostile document is refused with its line, before anything recursive touches it', () => {
    const text = '{\n  "messages": [\n    ' + deep(50_000) + '\n  ]\n}';
    expect(codeOf(() => parseJsonText(text, 'deep.json'))).toEqual({ code: 'too-deep:json', line: 3 });
  });

  it('a hostile JSONL line is refused with its line', () => {
    const text = '{"a":1}\n{"b":' + deep(20_000) + '}\n';
    expect(codeOf(() => readJsonl(sourceFromText('deep.jsonl', text)))).toEqual({ code: 'too-deep:json', line: 2 });
  });
});

describe('readJsonDocument + stringifyLike', () => {
  it('splits records at a path and re-joins them byte for byte', () => {
    const text = '{\r\n    "model": "x",\r\n    "messages": [\r\n        {"role": "user"},\r\n        {\r\n            "role": "assistant"\r\n        }\r\n    ]\r\n}\r\n';
    const set = readJsonDocument(text, 'x.json', ['messages']);
    expect(set.records.map((r) => [r.value, r.line])).toEqual([
      [{ role: 'user' }, 4],
      [{ role: 'assistant' }, 5],
    ]);
    expect(set.frame[0] + set.records[0].text + set.frame[1] + set.records[1].text + set.frame[2]).toBe(text);
    expect(set.style).toMatchObject({ indent: 4, eol: '\r\n' });
    // A re-written record sits at its depth in the document's style.
    expect(stringifyLike({ role: 'assistant' }, set.style, 2)).toBe(set.records[1].text);
  });

  it('reports a path that is not an array', () => {
    expect(codeOf(() => readJsonDocument('{"messages": 3}', 'x.json', ['messages'])).code).toBe('malformed:structure');
  });
});

describe('record line numbers (issue #16: one pass, exact)', () => {
  const messages = [
    { role: 'user', content: 'a' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'r' },
    { role: 'assistant', content: 'ok', tool_calls: [5] },
  ];
  const importError = (text: string) => codeOf(() => importBytes('x.json', new TextEncoder().encode(text)));

  it('a one-line document: every record on line 1, and an error names line 1 and the path', () => {
    const text = JSON.stringify({ messages });
    expect(readJsonDocument(text, 'x.json', ['messages']).records.map((r) => r.line)).toEqual([1, 1, 1, 1]);
    // A final newline (as most writers add) does not move anything.
    expect(readJsonDocument(text + '\n', 'x.json', ['messages']).records.map((r) => r.line)).toEqual([1, 1, 1, 1]);
    expect(importError(text)).toEqual({ code: 'malformed:openai-chat', line: 1 });
  });

  it('a multi-line document: each record on the line where it starts, and the error on its own line', () => {
    const text = JSON.stringify({ messages }, null, 2);
    const set = readJsonDocument(text, 'x.json', ['messages']);
    const expected = set.records.map((r) => text.slice(0, text.indexOf(r.text)).split('\n').length);
    expect(set.records.map((r) => r.line)).toEqual(expected);
    expect(expected).toEqual([3, 7, 21, 26]);
    expect(importError(text)).toEqual({ code: 'malformed:openai-chat', line: 26 });
    // Records sharing lines, blank lines and CRLF in between.
    const mixed = '{"messages": [{"role": "user"}, {"role": "assistant"},\r\n\r\n  {"role": "user"}, {"role": "tool"}\n]}';
    expect(readJsonDocument(mixed, 'x.json', ['messages']).records.map((r) => r.line)).toEqual([1, 1, 3, 3]);
  });

  it('placing the records of a one-line document is linear: as fast as the same document pretty-printed', () => {
    const many = Array.from({ length: 30_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(8) }));
    const minified = JSON.stringify({ messages: many });
    const pretty = JSON.stringify({ messages: many }, null, 2);
    const time = (text: string) => {
      // This thread's CPU per run (tests/cpu.ts), not wall time: a busy machine stretches the wall clock.
      const root = JSON.parse(text);
      let best = Infinity;
      for (let k = 0; k < 3; k++) best = Math.min(best, cpuPerRun(() => void readJsonDocument(text, 'x.json', ['messages'], root)));
      return best;
    };
    time(pretty);
    const p = time(pretty);
    const m = time(minified);
    // Quadratic, the minified side took ~40× the pretty one here (every record scanned the rest of the line).
    expect(m, `CPU ms: minified ${m.toFixed(1)}, pretty ${p.toFixed(1)}`).toBeLessThan(4 * p + 50);
  });
});
