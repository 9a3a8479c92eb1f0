/**
 * Static export: the whole app is files in out/, served by any static server (scripts/serve.mjs).
 * Nothing is fetched at build time (no next/font/google, no remote images), so it builds offline.
 */

/**
 * `npm test` (scripts/test-all.mjs) sets CONTEXTSCOPE_TYPECHECKED=1 for its build only: it has just
 * run `tsc --noEmit -p tsconfig.json` (and the worker project) and counted the result, and
 * `next build`'s own check is the same program (tsconfig.json's files, which exclude .next/: 520
 * files either way) — about 25 s of the build on CI's 2 cores for nothing new. Every other build
 * (`npm run build`, the bench, a plain `next build`) type-checks as before
 * (scripts/next-config.test.ts).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * The engine's code, named: a hash of every source file the worker runs (lib/, workers/; tests
 * left out) and of package-lock.json (the tokenizer's tables). The worker stores a log's replays
 * under it (lib/engine/replay.ts ReplayStore): a build whose engine differs in any byte never reads
 * a replay another build made.
 */
export function engineBuild(dir = root) {
  const hash = createHash('sha256');
  const files = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else if (/\.(ts|tsx|mjs|js|json)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) files.push(r);
    }
  };
  for (const d of ['lib', 'workers']) if (fs.existsSync(path.join(dir, d))) walk(d);
  files.sort();
  if (fs.existsSync(path.join(dir, 'package-lock.json'))) files.push('package-lock.json');
  for (const f of files) hash.update(`${f.split(path.sep).join('/')}\0`).update(fs.readFileSync(path.join(dir, f))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

export function nextConfigFor(env) {
  const typechecked = env.CONTEXTSCOPE_TYPECHECKED === '1';
  /** @type {import('next').NextConfig} */
  return {
    output: 'export',
    images: { unoptimized: true },
    reactStrictMode: true,
    // /inspect?id=… is one static page; query params carry the state (static export has no dynamic routes).
    trailingSlash: false,
    poweredByHeader: false,
    typescript: { ignoreBuildErrors: typechecked },
    // CS_SOURCEMAPS=1: browser source maps, to read a trace's minified names (bench/profile-app-trace.ts).
    productionBrowserSourceMaps: !!env.CS_SOURCEMAPS,
    env: { CONTEXTSCOPE_ENGINE_BUILD: engineBuild() },
  };
}

export default nextConfigFor(process.env);
