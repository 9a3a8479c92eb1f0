/**
 * The parsed JSON document of a SourceFile, parsed once and cached per file. It lives in lib/read
 * (not lib/formats/detect.ts) so format modules can use it without importing detect.ts, which
 * imports the registry, which imports the format modules: that cycle left registry entries
 * undefined whenever a format module was the first one loaded (e.g. a test importing it directly).
 */
import { parseJsonText } from './json-doc';
import { wholeJsonlRead } from './jsonl';
import type { SourceFile } from './source';

const roots = new WeakMap<SourceFile, unknown>();

/**
 * A file that was already read as JSONL and is one object on one line (blank text around it): its
 * record's value is the document (the same JSON text), without a second parse of megabytes.
 */
function oneLineRoot(file: SourceFile): object | undefined {
  const set = wholeJsonlRead(file);
  if (!set || set.records.length !== 1 || set.warnings.length > 0 || set.frame.some((f) => f.trim() !== '')) return undefined;
  const v = set.records[0].value;
  return typeof v === 'object' && v !== null ? v : undefined;
}

export function parsedRoot(file: SourceFile): unknown {
  if (roots.has(file)) return roots.get(file);
  const root = oneLineRoot(file) ?? parseJsonText(file.text(), file.name);
  roots.set(file, root);
  return root;
}
