/**
 * `npm run -s cli -- convert FILE --to FORMAT --out OUT [--conversation K] [--format SOURCE_FORMAT] [--full-history]`
 * Import FILE (any format), write it as FORMAT (an API format with a converter), validated by
 * re-importing the output. Prints what the target could not carry; exit 1 on failure.
 * A request made from a session is what the model is sent: by default the model's view (messages
 * the source's own compactions took out of view are left out, their summary stays); the whole
 * history, summary and all, only with --full-history.
 */
import path from 'node:path';
import { ImportError, userMessage } from '../errors';
import { conversionTargets, convertTranscript } from '../formats/convert';
import { importFile } from '../formats/import';
import { projectTranscript } from '../compaction/project';
import { contextTotals } from '../tokens/totals';
import { EXIT, EXIT_CODES_HELP, checkOutPath, explainExportError, readSource, writeOutput } from './_files';

export const summary = 'Convert FILE to another format (--to openai-chat|anthropic-messages|…) and validate the result';

const USAGE = 'Usage: npm run -s cli -- convert FILE --to FORMAT --out OUT [--conversation K] [--format SOURCE_FORMAT] [--full-history]\n  Writes what the model is sent (the model\'s view: history a compaction of the source took out of view is left out); --full-history writes every message.';

export async function run(args: string[]): Promise<number> {
  let file: string | undefined;
  let to: string | undefined;
  let out: string | undefined;
  let conversation: number | undefined;
  let format: string | undefined;
  let fullHistory = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\nTargets: ${conversionTargets().map((t) => t.id).join(', ')}\n${EXIT_CODES_HELP}\n`);
      return 0;
    }
    if (a === '--to') to = args[++i];
    else if (a === '--out' || a === '-o') out = args[++i];
    else if (a === '--format') format = args[++i];
    else if (a === '--full-history') fullHistory = true;
    else if (a === '--conversation') {
      const v = Number(args[++i]);
      if (!Number.isInteger(v) || v < 0) {
        process.stderr.write(`--conversation needs a non-negative integer.\n${USAGE}\n`);
        return 2;
      }
      conversation = v;
    } else if (a.startsWith('--')) {
      process.stderr.write(`Unknown option ${a}.\n${USAGE}\n`);
      return 2;
    } else if (file === undefined) file = a;
    else {
      process.stderr.write(`Only one FILE can be converted at a time.\n${USAGE}\n`);
      return 2;
    }
  }
  if (!file || !to || !out) {
    process.stderr.write(`${USAGE}\nTargets: ${conversionTargets().map((t) => t.id).join(', ')}\n`);
    return 2;
  }
  if (!conversionTargets().some((t) => t.id === to)) {
    process.stderr.write(`convert failed: Unknown format "${to}". Targets: ${conversionTargets().map((t) => t.id).join(', ')}\n`);
    return EXIT.badInput;
  }
  try {
    checkOutPath(out);
    const { transcript } = importFile(readSource(file), { ...(conversation !== undefined && { conversation }), ...(format && { format }) });
    // The model's view unless asked for the whole log (zero steps on the 'model-view' baseline: only the source's markers apply).
    const hidden = transcript.markers.some((k) => k.covers && k.covers[1] > k.covers[0]);
    const view = fullHistory || !hidden ? undefined : projectTranscript(transcript, [], { baseline: 'model-view' });
    let result: ReturnType<typeof convertTranscript>;
    try {
      result = convertTranscript(transcript, to, view);
    } catch (e) {
      throw explainExportError(e, 'converted file');
    }
    writeOutput(out, result.bytes ?? result.text);
    process.stdout.write(`${path.basename(file)} (${transcript.format}, ${transcript.messages.length} messages) → ${out} (${result.format}, ${result.messages} messages, ${result.tokens.after.toLocaleString('en-US')} tokens, validated)\n`);
    if (view) {
      const full = contextTotals(transcript.messages.filter((m) => !m.sidechain), transcript.tools).total;
      process.stdout.write(`Wrote the model's view: ${transcript.messages.length - view.messages.length} message(s) the source's compaction took out of view were left out (the whole history is ${full.toLocaleString('en-US')} tokens; --full-history writes it).\n`);
    } else if (fullHistory && hidden) process.stdout.write(`Wrote the full history (--full-history): the messages the source's compaction took out of view are included, before their summary.\n`);
    if (result.dropped.length === 0) process.stdout.write('Nothing dropped.\n');
    else {
      process.stdout.write(`Dropped (${result.dropped.length}):\n`);
      const shown = result.dropped.slice(0, 40);
      for (const d of shown) process.stdout.write(`  - ${d}\n`);
      if (result.dropped.length > shown.length) process.stdout.write(`  … and ${result.dropped.length - shown.length} more\n`);
    }
    return 0;
  } catch (e) {
    process.stderr.write(`convert failed: ${userMessage(e)}\n`);
    return e instanceof ImportError ? EXIT.badInput : EXIT.missedTarget;
  }
}
