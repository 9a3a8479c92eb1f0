/**
 * CLI entry: `npm run -s cli -- <verb> ...` → `lib/cli/<verb>.ts`'s `run(args): Promise<number>`.
 * Adding a verb is adding a file (the CLI convention); nobody edits this dispatcher for that.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { userMessage } from '../errors';

interface VerbModule {
  run(args: string[]): Promise<number>;
  /** One line shown by --help. */
  summary?: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Verbs = the .ts files beside this one that are not main, tests or helpers (names with a dot or underscore). */
export function listVerbs(): string[] {
  return fs
    .readdirSync(here)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts') && f !== 'main.ts' && /^[a-z][a-z0-9-]*\.ts$/.test(f))
    .map((f) => f.slice(0, -3))
    .sort();
}

async function loadVerb(verb: string): Promise<VerbModule | undefined> {
  if (!/^[a-z][a-z0-9-]*$/.test(verb) || !listVerbs().includes(verb)) return undefined;
  const mod = (await import(pathToFileURL(path.join(here, `${verb}.ts`)).href)) as Partial<VerbModule>;
  return typeof mod.run === 'function' ? (mod as VerbModule) : undefined;
}

async function help(): Promise<string> {
  const lines = ['Usage: npm run -s cli -- <verb> [args]', '', 'Verbs:'];
  for (const verb of listVerbs()) {
    let summary = '';
    try {
      const mod = (await import(pathToFileURL(path.join(here, `${verb}.ts`)).href)) as Partial<VerbModule>;
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

export async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write((await help()) + '\n');
    return verb ? 0 : 2;
  }
  const mod = await loadVerb(verb);
  if (!mod) {
    process.stderr.write(`Unknown verb "${verb}". Verbs: ${listVerbs().join(', ')}\n`);
    return 2;
  }
  try {
    return await mod.run(rest);
  } catch (e) {
    process.stderr.write(userMessage(e) + '\n');
    return 2;
  }
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  // exitCode, not exit(): large outputs piped to another process must be flushed first.
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(userMessage(e) + '\n');
      process.exitCode = 2;
    },
  );
}
