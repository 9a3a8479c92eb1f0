/**
 * Layering: a format serializes a projection, a view of the log, and depends on lib/model for it;
 * no importer or exporter knows the compaction package (issue 13 "Structure"). The message list
 * draws fates from lib/model too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const importsOf = (file: string) => [...fs.readFileSync(file, 'utf8').matchAll(/^import[^;]*?from '([^']+)'/gms)].map((m) => m[1]);

describe('layering', () => {
  it('no format module imports lib/compaction', () => {
    const dir = path.resolve('lib/formats');
    const offenders = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('testkit'))
      .flatMap((f) => importsOf(path.join(dir, f)).filter((s) => /(^|\/)compaction\//.test(s)).map((s) => `${f} → ${s}`));
    expect(offenders).toEqual([]);
  });
  it('the projection types are lib/model types that lib/compaction re-exports', () => {
    const model = fs.readFileSync(path.resolve('lib/model/projection.ts'), 'utf8');
    for (const name of ['Projection', 'ProjectedMessage', 'ProjectedBlock', 'Fate']) expect(model).toMatch(new RegExp(`export (interface|type) ${name}\\b`));
    expect(importsOf(path.resolve('lib/model/projection.ts')).some((s) => s.includes('compaction'))).toBe(false);
  });
});
