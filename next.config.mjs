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
  };
}

export default nextConfigFor(process.env);
