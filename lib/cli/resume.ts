/**
 * `contextscope resume FILE --agent claude-code|codex-cli|gemini-cli [--cwd DIR] [--json]`
 * Writes FILE (an export in that agent's format, e.g. the output of `compact`) into the agent's own
 * store as a NEW session: a new id everywhere the format carries one, the lineage beside it, the
 * original never touched (lib/sessions/resume.ts). Prints the one command that resumes it;
 * `--json` prints {agent, sessionId, path, command}.
 */
import path from 'node:path';
import { userMessage } from '../errors';
import { PathRefused, resolveStores } from '../sessions/stores';
import { RESUME_AGENTS, ResumeInputError, resumeFork } from '../sessions/resume';
import type { ResumeAgent } from '../sessions/contract';
import { readInputFile } from './_files';

export const summary = 'Write an exported session into Claude Code, Codex or Gemini CLI as a new session (a fork) and print the command that resumes it';

const USAGE = 'Usage: contextscope resume FILE --agent claude-code|codex-cli|gemini-cli [--cwd DIR] [--json]';

export async function run(args: string[]): Promise<number> {
  let file: string | undefined;
  let agent: string | undefined;
  let cwd: string | undefined;
  let asJson = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (a === '--json') asJson = true;
    else if (a === '--agent') agent = args[++i];
    else if (a === '--cwd') cwd = args[++i];
    else if (a.startsWith('--')) {
      process.stderr.write(`Unknown option ${a}.\n${USAGE}\n`);
      return 2;
    } else if (file === undefined) file = a;
    else {
      process.stderr.write(`Only one FILE can be resumed at a time.\n${USAGE}\n`);
      return 2;
    }
  }
  if (!file || !agent) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!RESUME_AGENTS.includes(agent as ResumeAgent)) {
    process.stderr.write(`resume: --agent "${agent}" is not one of ${RESUME_AGENTS.join(', ')}.\n`);
    return 2;
  }
  let content: string;
  try {
    content = new TextDecoder('utf-8', { fatal: false }).decode(readInputFile(file));
  } catch (e) {
    process.stderr.write(`resume: ${userMessage(e)}\n`);
    return 2;
  }
  try {
    const r = resumeFork(resolveStores(process.env), { agent, content, ...(cwd !== undefined && { cwd: path.resolve(cwd) }) }, { sourcePath: path.resolve(file) });
    if (asJson) process.stdout.write(JSON.stringify({ agent: r.agent, sessionId: r.sessionId, path: r.path, command: r.command, ...(r.cwd && { cwd: r.cwd }) }, null, 2) + '\n');
    else process.stdout.write(`Wrote a new ${r.agent} session ${r.sessionId}\n  ${r.path}\nResume it with:\n  ${r.command}\n`);
    return 0;
  } catch (e) {
    if (e instanceof ResumeInputError || e instanceof PathRefused) {
      process.stderr.write(`resume: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
