/**
 * The parsed JSON document of a SourceFile, parsed once and cached per file. It lives in lib/read
 * (not lib/formats/detect.ts) so format modules can use it without importing detect.ts, which
 * imports the registry, which imports the format modules: that cycle left registry entries
 * undefined whenever a format module was the first one loaded (e.g. a test importing it directly).
 */
import { parseJsonText } from './json-doc';
import type { SourceFile } from './source';

const roots = new WeakMap<SourceFile, unknown>();

export function parsedRoot(file: SourceFile): unknown {
  if (roots.has(file)) return roots.get(file);
  const root = parseJsonText(file.text(), file.name);
  roots.set(file, root);
  return root;
}
