/**
 * Vitest global setup: the unit tests run the CLI as a process from its bundle (tests/cli-entry.ts);
 * build it once here, before any test file starts, when it is missing or older than a source file
 * (a fresh clone's `npm install` built it already). Built here and not in a test file: a rebuild
 * swaps dist/cli while another worker's test may be starting the CLI.
 */
// @ts-expect-error — a plain .mjs build script, no types
import { build, isStale } from '../scripts/build-cli.mjs';

export default async function setup(): Promise<void> {
  if (isStale()) await build();
}
