import { describe, expect, it } from 'vitest';
import { ImportError } from '../errors';
import { depthExceededAt, MAX_JSON_DEPTH, parseJsonText, readJsonDocument, stringifyLike } from './json-doc';
import { readJsonl } from './jsonl';
import { sourceFromText } from './source';

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
