import { expect, it } from 'vitest';
import { importedCorpus } from '../../tests/corpus';
import { buildTimeline } from './timeline';
import { packTurns, unpackTurns } from './packed-turns';

it('packed timeline turns read back as the same turns, on both axes of every corpus file', () => {
  let files = 0;
  let withRecorded = 0;
  let withTime = 0;
  for (const { name, log } of importedCorpus()) {
    files++;
    for (const axis of ['turns', 'calls'] as const) {
      const turns = buildTimeline({ messages: log.messages, usage: log.usage, markers: log.markers, tools: log.tools, axis }).turns;
      const back = unpackTurns(packTurns(turns));
      // Strict: optional fields absent stay absent (not undefined).
      expect(back, `${name} (${axis})`).toStrictEqual(turns);
      if (turns.some((t) => t.recorded !== undefined)) withRecorded++;
      if (turns.some((t) => t.time !== undefined)) withTime++;
    }
  }
  // The corpus exercises every optional field.
  expect(files).toBeGreaterThan(30);
  expect(withRecorded).toBeGreaterThan(10);
  expect(withTime).toBeGreaterThan(10);
});
