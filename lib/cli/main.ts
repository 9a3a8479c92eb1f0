/**
 * CLI entry: `npm run -s cli -- <verb> ...` → `lib/cli/<verb>.ts`'s `run(args): Promise<number>`.
 * Adding a verb is adding a file (the CLI convention); nobody edits this dispatcher for that.
 *
 * Two ways in: from source (`node --import tsx lib/cli/main.ts`: verbs are the .ts files beside
 * this one, found at run time), and the built bundle (`npm run cli`, the `contextscope` bin:
 * scripts/build-cli.mjs lists the same files at build time and passes them as a VerbTable).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { userMessage } from '../errors';

export interface VerbModule {
  run(args: string[]): Promise<number>;
  /** One line shown by --help. */
  summary?: string;
}

/** Verb name → its module, loaded on demand. */
export type VerbTable = Record<string, () => Promise<Partial<VerbModule>>>;

const here = path.dirname(fileURLToPath(import.meta.url));

/** Verbs = the .ts files beside this one that are not main, tests or helpers (names with a dot or underscore). */
export function listVerbs(): string[] {
  return fs
    .readdirSync(here)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts') && f !== 'main.ts' && /^[a-z][a-z0-9-]*\.ts$/.test(f))
    .map((f) => f.slice(0, -3))
    .sort();
}

/** The verbs of the source tree, imported from their .ts files (needs a TypeScript loader such as tsx). */
export function sourceVerbs(): VerbTable {
  return Object.fromEntries(listVerbs().map((v) => [v, () => import(pathToFileURL(path.join(here, `${v}.ts`)).href) as Promise<Partial<VerbModule>>]));
}

async function loadVerb(verbs: VerbTable, verb: string): Promise<VerbModule | undefined> {
  if (!/^[a-z][a-z0-9-]*$/.test(verb) || !Object.hasOwn(verbs, verb)) return undefined;
  const mod = await verbs[verb]();
  return typeof mod.run === 'function' ? (mod as VerbModule) : undefined;
}

async function help(verbs: VerbTable): Promise<string> {
  const lines = ['Usage: npm run -s cli -- <verb> [args]', '', 'Verbs:'];
  for (const verb of Object.keys(verbs).sort()) {
    let summary = '';
    try {
      const mod = await verbs[verb]();
      if (typeof mod.run !== 'function') continue;
      summary = mod.summary ?? '';
    } catch {
      summary = '(failed to load)';
    }
    lines.push(`  ${verb.padEnd(12)} ${summary}`);
  }
  lines.push('', 'Run `npm run -s cli -- <verb> --help` for a verb\'s options.', '', 'Exit codes: 0 success, 1 the compaction missed its target (over budget, tool pairing broken, a roundtrip', '            that is not identical), 2 bad input (unreadable or malformed file, unknown option).');
  return lines.join('\n');
}

export async function main(argv: string[], verbs: VerbTable = sourceVerbs()): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write((await help(verbs)) + '\n');
    return verb ? 0 : 2;
  }
  const mod = await loadVerb(verbs, verb);
  if (!mod) {
    process.stderr.write(`Unknown verb "${verb}". Verbs: ${Object.keys(verbs).sort().join(', ')}\n`);
    return 2;
  }
  try {
    return await mod.run(rest);
  } catch (e) {
    process.stderr.write(userMessage(e) + '\n');
    return 2;
  }
}

/** Run the CLI with this process's arguments and set its exit code. */
export function start(verbs?: VerbTable): void {
  // exitCode, not exit(): large outputs piped to another process must be flushed first.
  main(process.argv.slice(2), verbs).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(userMessage(e) + '\n');
      process.exitCode = 2;
    },
  );
}

// From source only: in the bundle this module is part of dist/cli/main.mjs, whose own entry calls start(verbs).
const invokedDirectly = import.meta.url.endsWith('.ts') && process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) start();
