/**
 * next.config.mjs: `next build` skips its own type check only when `npm test` says it has just run
 * the same check (CONTEXTSCOPE_TYPECHECKED=1, set by scripts/test-all.mjs for its build alone;
 * scripts/test-all.test.ts checks that). A plain `npm run build` — and the e2e build, which sets
 * NEXT_PUBLIC_E2E — still type-checks; and the check it would skip covers the same files as
 * `tsc -p tsconfig.json`, the one test-all runs.
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import ts from 'typescript';
// @ts-expect-error a JavaScript module without types
import nextConfig, { nextConfigFor } from '../next.config.mjs';

const root = path.resolve(__dirname, '..');

describe('next.config.mjs: the build type-checks unless npm test already did', () => {
  it('type-checks by default, for the e2e build too; skips only with CONTEXTSCOPE_TYPECHECKED=1', () => {
    expect(nextConfigFor({}).typescript.ignoreBuildErrors).toBe(false);
    expect(nextConfigFor({ NEXT_PUBLIC_E2E: '1', NEXT_TELEMETRY_DISABLED: '1' }).typescript.ignoreBuildErrors).toBe(false);
    expect(nextConfigFor({ CONTEXTSCOPE_TYPECHECKED: '0' }).typescript.ignoreBuildErrors).toBe(false);
    expect(nextConfigFor({ CONTEXTSCOPE_TYPECHECKED: '1' }).typescript.ignoreBuildErrors).toBe(true);
    // Nothing else changes with it.
    const { typescript: a, ...restA } = nextConfigFor({});
    const { typescript: b, ...restB } = nextConfigFor({ CONTEXTSCOPE_TYPECHECKED: '1' });
    expect(restB).toEqual(restA);
    expect(a).not.toEqual(b);
    // The default export is the config for this process's environment (vitest does not set it).
    expect(process.env.CONTEXTSCOPE_TYPECHECKED).toBeUndefined();
    expect(nextConfig.typescript.ignoreBuildErrors).toBe(false);
  });

  it("the build's check would cover what tsc -p tsconfig.json covers: .next/ is excluded, so no generated route types are lost", () => {
    // next build's runTypeCheck takes getTypeScriptConfiguration(tsconfig).fileNames, as tsc does.
    const read = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
    expect(parsed.fileNames.length).toBeGreaterThan(100);
    expect((read.config as { exclude: string[] }).exclude).toContain('.next');
    expect(parsed.fileNames.filter((f) => path.relative(root, f).startsWith('.next'))).toEqual([]);
  });
});
