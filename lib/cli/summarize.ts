/**
 * `npm run -s cli -- summarize FILE [--turns A-B] [--summary-style S] [--provider P --model M --base-url U]
 *   [--conversation K] [--tangents] [--test-connection]`
 *
 * Prints the summary of a turn range: offline by default (deterministic, no network), or written
 * by the configured provider (the key only from the environment). `--tangents` asks the provider
 * which turns are tangents (a list only: `compact --strategy classify-tangents --tangents …`
 * removes them). `--test-connection` checks the provider settings and exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProjectedMessage } from '../compaction/types';
import { userMessage } from '../errors';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { CliProviderError, providerFromEnvOrFlags } from '../summarize/cli-provider';
import { summarizeOffline } from '../summarize/offline';
import { testConnection } from '../summarize/providers';
import { ProviderError } from '../summarize/providers/errors';
import { classifyTangentsWithProvider, produceSummary } from '../summarize/run';

export const summary = 'Summarize a turn range (offline, or with --provider), list tangents, or test a provider';

const USAGE = `Usage: npm run -s cli -- summarize FILE [--turns A-B] [--summary-style S] [--conversation K]
                              [--provider openai|anthropic|gemini --model M --base-url U --timeout SEC]
                              [--prompt-file F] [--tangents] [--test-connection]

  --turns A-B         turns to summarize, 1-based, inclusive (default: all)
  --summary-style S   structured (default), claude-code, narrative
  --provider P        summarize with an LLM (key from CONTEXTSCOPE_API_KEY or the provider's own
                      variable: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY); default offline.
                      A transient failure (rate limit, 5xx, network, timeout) is retried once, after
                      the server's Retry-After (else 1 s; no retry when it asks for more than 30 s)
  --prompt-file F     a prompt template with {{conversation}} (and {{previous_summary}}, {{span}}, {{checklist}})
  --tangents          ask the provider which turns are tangents (lists them; removes nothing)
  --test-connection   check the provider (URL, key, model) and exit`;

interface Args {
  file?: string;
  turns?: [number, number];
  conversation?: number;
  tangents: boolean;
  testConnection: boolean;
  help: boolean;
}

function parseArgs(rest: string[]): Args {
  const out: Args = { tangents: false, testConnection: false, help: false };
  for (let i = 0; i < rest.length; i++) {
    const [flag, inline] = rest[i].startsWith('--') && rest[i].includes('=') ? [rest[i].slice(0, rest[i].indexOf('=')), rest[i].slice(rest[i].indexOf('=') + 1)] : [rest[i], undefined];
    const value = () => {
      const v = inline ?? rest[++i];
      if (v === undefined || v.startsWith('--')) throw new CliProviderError(`${flag} needs a value.`);
      return v;
    };
    switch (flag) {
      case '--help':
      case '-h':
        out.help = true;
        break;
      case '--turns': {
        const m = /^(\d+)(?:-(\d+))?$/.exec(value());
        if (!m || Number(m[1]) < 1 || Number(m[2] ?? m[1]) < Number(m[1])) throw new CliProviderError('--turns takes A-B, 1-based, A ≤ B (e.g. --turns 1-12).');
        out.turns = [Number(m[1]) - 1, Number(m[2] ?? m[1]) - 1];
        break;
      }
      case '--conversation': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 0) throw new CliProviderError('--conversation takes a whole number ≥ 0.');
        out.conversation = n;
        break;
      }
      case '--tangents':
        out.tangents = true;
        break;
      case '--test-connection':
        out.testConnection = true;
        break;
      default:
        if (flag.startsWith('-')) throw new CliProviderError(`Unknown option ${flag}.`);
        if (out.file !== undefined) throw new CliProviderError(`Only one FILE (got "${out.file}" and "${flag}").`);
        out.file = flag;
    }
  }
  return out;
}

export async function run(argv: string[]): Promise<number> {
  let cli: ReturnType<typeof providerFromEnvOrFlags>;
  let a: Args;
  try {
    cli = providerFromEnvOrFlags(argv, process.env);
    a = parseArgs(cli.rest);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (a.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (a.testConnection) {
    if (!cli.provider) {
      process.stderr.write('--test-connection needs --provider.\n');
      return 2;
    }
    const result = await testConnection(cli.config!);
    if (result.ok) process.stdout.write(`ok: ${cli.describe} answered in ${result.latencyMs} ms (model ${result.model})\n`);
    else process.stderr.write(`${result.message}\n`);
    return result.ok ? 0 : 1;
  }
  if (!a.file) {
    process.stderr.write(`summarize needs a FILE.\n\n${USAGE}\n`);
    return 2;
  }
  try {
    const t = importFile(sourceFromBytes(path.basename(a.file), new Uint8Array(fs.readFileSync(a.file))), { ...(a.conversation !== undefined && { conversation: a.conversation }) }).transcript;
    const [from, to] = a.turns ?? [0, Math.max(0, t.turnCount - 1)];
    if (from >= t.turnCount) {
      process.stderr.write(`The transcript has ${t.turnCount} turn(s): --turns starts past the end.\n`);
      return 2;
    }
    const messages: ProjectedMessage[] = t.messages
      .filter((m) => m.turn >= from && m.turn <= to && !m.sidechain)
      .map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: m.blocks, ...(m.meta && { meta: true }) }));
    const span: [number, number] = [from, Math.min(to, t.turnCount - 1)];

    if (a.tangents) {
      if (!cli.provider) {
        process.stderr.write('--tangents needs --provider (the offline proposals are in `compact --strategy classify-tangents`).\n');
        return 2;
      }
      const found = await classifyTangentsWithProvider({ messages }, cli.provider, { dryRun: true });
      process.stdout.write(found.tangents.length ? found.tangents.map((x) => `turn ${x.turn + 1}: ${x.reason}`).join('\n') + '\n' : 'no tangents\n');
      if (found.ignored.length) process.stderr.write(`ignored turn(s) outside the range: ${found.ignored.map((n) => n + 1).join(', ')}\n`);
      return 0;
    }

    if (!cli.provider) {
      process.stdout.write(summarizeOffline({ messages, span, style: cli.style }) + '\n');
      return 0;
    }
    process.stderr.write(`summarizing turns ${span[0] + 1}–${span[1] + 1} with ${cli.describe}…\n`);
    const result = await produceSummary({ messages, span }, cli.provider, { template: cli.template });
    process.stdout.write(result.text + '\n');
    return 0;
  } catch (e) {
    process.stderr.write((e instanceof ProviderError ? e.message : userMessage(e)) + '\n');
    return 1;
  }
}
