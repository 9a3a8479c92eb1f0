/**
 * `npm run -s cli -- convert FILE --to FORMAT --out OUT [--conversation K] [--format SOURCE_FORMAT]`
 * Import FILE (any format), write it as FORMAT (an API format with a converter), validated by
 * re-importing the output. Prints what the target could not carry; exit 1 on failure.
 */
import path from 'node:path';
import { ImportError, userMessage } from '../errors';
import { conversionTargets, convertTranscript } from '../formats/convert';
import { importFile } from '../formats/import';
import { EXIT, EXIT_CODES_HELP, checkOutPath, explainExportError, readSource, writeOutput } from './_files';

export const summary = 'Convert FILE to another format (--to openai-chat|anthropic-messages|…) and validate the result';

const USAGE = 'Usage: npm run -s cli -- convert FILE --to FORMAT --out OUT [--conversation K] [--format SOURCE_FORMAT]';

export async function run(args: string[]): Promise<number> {
  let file: string | undefined;
  let to: string | undefined;
  let out: string | undefined;
  let conversation: number | undefined;
  let format: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\nTargets: ${conversionTargets().map((t) => t.id).join(', ')}\n${EXIT_CODES_HELP}\n`);
      return 0;
    }
    if (a === '--to') to = args[++i];
    else if (a === '--out' || a === '-o') out = args[++i];
    else if (a === '--format') format = args[++i];
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
    let result: ReturnType<typeof convertTranscript>;
    try {
      result = convertTranscript(transcript, to);
    } catch (e) {
      throw explainExportError(e, 'converted file');
    }
    writeOutput(out, result.bytes ?? result.text);
    process.stdout.write(`${path.basename(file)} (${transcript.format}, ${transcript.messages.length} messages) → ${out} (${result.format}, ${result.messages} messages, validated)\n`);
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
