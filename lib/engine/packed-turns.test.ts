import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { allCorpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { buildTimeline } from './timeline';
import { packTurns, unpackTurns } from './packed-turns';

it('packed timeline turns read back as the same turns, on both axes of every corpus file', () => {
  let files = 0;
  let withRecorded = 0;
  let withTime = 0;
  for (const f of allCorpusFiles().filter((x) => !x.endsWith('.md') && !x.endsWith('.chunks.txt'))) {
    let log;
    try {
      log = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
    } catch {
      continue; // container files import per conversation (covered by their importer tests)
    }
    files++;
    for (const axis of ['turns', 'calls'] as const) {
      const turns = buildTimeline({ messages: log.messages, usage: log.usage, markers: log.markers, tools: log.tools, axis }).turns;
      const back = unpackTurns(packTurns(turns));
      // Strict: optional fields absent stay absent (not undefined).
      expect(back, `${path.basename(f)} (${axis})`).toStrictEqual(turns);
      if (turns.some((t) => t.recorded !== undefined)) withRecorded++;
      if (turns.some((t) => t.time !== undefined)) withTime++;
    }
  }
  // The corpus exercises every optional field.
  expect(files).toBeGreaterThan(30);
  expect(withRecorded).toBeGreaterThan(10);
  expect(withTime).toBeGreaterThan(10);
});
