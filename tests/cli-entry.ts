/**
 * The CLI as a process, as users run it (`npm run cli`, the `contextscope` bin): the built bundle
 * dist/cli/main.mjs (scripts/build-cli.mjs). Vitest's global setup (tests/build-cli.setup.ts)
 * rebuilds it once per run when it is older than its sources, so a child process runs the code
 * under test. Node starts it in ~0.5 s of CPU; `tsx lib/cli/main.ts` took ~3 s per start-up
 * (transpiling the sources), and the unit tests start the CLI some 40 times.
 */
// @ts-expect-error — a plain .mjs build script, no types
import { entryFile } from '../scripts/build-cli.mjs';

export const CLI_ENTRY: string = entryFile;

/** node's arguments to run the CLI with ARGS. */
export const cliArgv = (...args: string[]): string[] => [CLI_ENTRY, ...args];
