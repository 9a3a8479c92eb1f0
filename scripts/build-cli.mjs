/**
 * Builds the CLI as JavaScript: dist/cli/main.mjs (+ chunks, one per verb, loaded on demand),
 * bundled by esbuild from lib/cli. Node starts it in a fraction of the time tsx needs to
 * transpile the sources at every start. npm dependencies stay external (resolved from
 * node_modules at run time, as from source).
 *
 *   node scripts/build-cli.mjs          build (also run by `npm install` through "prepare")
 *   node scripts/build-cli.mjs --check  exit 1 when the bundle is older than a source file
 *
 * Verbs are the lib/cli/*.ts files that are not main, tests or helpers — the rule of
 * lib/cli/main.ts's listVerbs, applied here at build time (a verb is still just a file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const outDir = path.join(root, 'dist', 'cli');
export const entryFile = path.join(outDir, 'main.mjs');
/** Everything the bundle is built from: a change to any of them makes it stale. */
const SOURCES = ['lib', 'workers', 'package.json', 'tsconfig.json', 'scripts/build-cli.mjs'];
/** Extra entries that run in their own thread (worker_threads): their own file in dist/cli. */
const WORKER_ENTRIES = { 'compact-worker': 'lib/cli/_compact-worker.ts', 'token-worker': 'lib/cli/_token-worker.ts' };

export function verbFiles() {
  const dir = path.join(root, 'lib', 'cli');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts') && f !== 'main.ts' && /^[a-z][a-z0-9-]*\.ts$/.test(f))
    .sort();
}

function newestSource() {
  let newest = 0;
  const walk = (p) => {
    let st;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p)) if (e !== 'node_modules' && !e.startsWith('.')) walk(path.join(p, e));
    } else if (st.mtimeMs > newest) newest = st.mtimeMs;
  };
  for (const s of SOURCES) walk(path.join(root, s));
  return newest;
}

/** True when dist/cli/main.mjs is missing or older than a source file. */
export function isStale() {
  try {
    return fs.statSync(entryFile).mtimeMs < newestSource();
  } catch {
    return true;
  }
}

/**
 * lib/tokens/count.ts imports #bpe (package.json "imports": bpe.ts, or bpe.browser.ts in the app):
 * the CLI gets bpe.cli.ts, which loads an encoding on its first count.
 */
const lazyTokenizer = {
  name: 'lazy-tokenizer',
  setup(b) {
    b.onResolve({ filter: /^#bpe$/ }, (args) => (path.resolve(args.importer) === path.join(root, 'lib', 'tokens', 'count.ts') ? { path: path.join(root, 'lib', 'tokens', 'bpe.cli.ts') } : undefined));
  },
};

export async function build() {
  const { build: esbuild } = await import('esbuild');
  const verbs = verbFiles().map((f) => f.slice(0, -3));
  const entry = [
    `import { start } from './main.ts';`,
    `start({`,
    ...verbs.map((v) => `  ${JSON.stringify(v)}: () => import('./${v}.ts'),`),
    `});`,
  ].join('\n');
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(path.dirname(outDir), '.build-'));
  try {
    await esbuild({
      stdin: { contents: entry, resolveDir: path.join(root, 'lib', 'cli'), sourcefile: 'cli-entry.ts', loader: 'ts' },
      entryPoints: Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([k, v]) => [k, path.join(root, v)]).filter(([, v]) => fs.existsSync(v))),
      bundle: true,
      splitting: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      packages: 'external',
      outdir: tmp,
      entryNames: '[name]',
      chunkNames: 'chunks/[name]-[hash]',
      outExtension: { '.js': '.mjs' },
      sourcemap: 'linked',
      logLevel: 'warning',
      absWorkingDir: root,
      plugins: [lazyTokenizer],
    });
    // esbuild names the stdin entry "stdin": the CLI's entry is main.mjs.
    fs.renameSync(path.join(tmp, 'stdin.mjs'), path.join(tmp, 'main.mjs'));
    if (fs.existsSync(path.join(tmp, 'stdin.mjs.map'))) fs.renameSync(path.join(tmp, 'stdin.mjs.map'), path.join(tmp, 'main.mjs.map'));
    // Swap in the whole directory at once: a concurrent `npm run cli` never sees half a bundle.
    const old = fs.existsSync(outDir) ? `${outDir}.old-${process.pid}` : undefined;
    if (old) fs.renameSync(outDir, old);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, outDir);
    if (old) fs.rmSync(old, { recursive: true, force: true });
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  if (process.argv.includes('--check')) {
    const stale = isStale();
    if (stale) console.error('dist/cli is older than its sources: run `node scripts/build-cli.mjs`.');
    process.exit(stale ? 1 : 0);
  }
  await build();
}
