#!/usr/bin/env node
/**
 * `npm run cli` and the `contextscope` bin: runs the built CLI (dist/cli/main.mjs). When the
 * bundle is missing or older than its sources (a fresh clone, an edit), it is rebuilt first —
 * offline, with the esbuild of node_modules — and the rebuild is said on stderr.
 */
import { build, entryFile, isStale } from './build-cli.mjs';
import { pathToFileURL } from 'node:url';

if (isStale()) {
  try {
    await build();
    process.stderr.write('(built dist/cli from sources)\n');
  } catch (e) {
    process.stderr.write(`Could not build the CLI (node scripts/build-cli.mjs): ${e instanceof Error ? e.message : e}\n`);
    process.exit(2);
  }
}
await import(pathToFileURL(entryFile).href);
