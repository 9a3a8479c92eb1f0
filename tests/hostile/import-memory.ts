/**
 * Measures what importing N tiny records (one JSON object each, on one line) adds to the JS heap
 * and to the resident set, with the collector run before: `node --expose-gc --import tsx
 * tests/hostile/import-memory.ts N` prints {objects, heapPerObject, rssPerObject}. The memory
 * estimate of lib/cli/_files.ts (HEAP_BYTES_PER_OBJECT) is checked against it (issue 30: a
 * 10M-record file took 11.4 GB resident against the 9.3 GB estimated).
 */
import { importBytes } from '../../lib/formats/import';

const n = Number(process.argv[2] ?? 200_000);
const parts: string[] = [];
for (let i = 0; i < n; i++) parts.push(i % 2 ? '{"role":"assistant","content":"y"}' : '{"role":"user","content":"x"}');
const bytes = new TextEncoder().encode(`{"messages":[${parts.join(',')}]}`);
parts.length = 0;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
gc();
const before = process.memoryUsage();
const t = importBytes('tiny.json', bytes).transcript;
const after = process.memoryUsage(); // no collection in between: what the import holds at its end
const objects = n + 1;
process.stdout.write(JSON.stringify({ objects, messages: t.messages.length, heapPerObject: (after.heapUsed - before.heapUsed) / objects, rssPerObject: (after.rss - before.rss) / objects }) + '\n');
