/**
 * `npm run bench [-- section…]`: each section lives in its own file (bench/*.ts) and is run in
 * turn. With no argument every section runs; `npm run bench -- compaction` runs one.
 */
import { runCompactionBench } from './compaction';
import { runGrowthBench } from './growth';
import { runImportBench } from './import';

const SECTIONS: Record<string, () => Promise<unknown>> = {
  import: runImportBench,
  compaction: () => runCompactionBench(),
  growth: () => runGrowthBench(),
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = wanted.filter((w) => !(w in SECTIONS));
  if (unknown.length) {
    console.error(`Unknown section(s): ${unknown.join(', ')}. Sections: ${Object.keys(SECTIONS).join(', ')}`);
    process.exit(2);
  }
  for (const name of wanted.length ? wanted : Object.keys(SECTIONS)) await SECTIONS[name]();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
