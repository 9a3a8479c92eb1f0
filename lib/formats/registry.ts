/**
 * The ordered list of formats. Detection asks every format for a confidence; the highest wins and
 * ties go to the earlier entry, so the order below is FORMATS.md §8's detection order
 * (Codex before Claude Code, Inspect before Chat, SWE-agent before mini-swe-agent, Chat last among
 * the message-array shapes).
 *
 * To add a format: one file in lib/formats/, one line here, one line in the corpus test.
 */
import type { FormatModule } from './types';
import { inspectAiFormat } from './inspect-ai';
import { sweAgentFormat } from './swe-agent';
import { miniSweAgentFormat } from './mini-swe-agent';
import { openhandsFormat } from './openhands';
import { openaiChat } from './openai-chat';
import { claudeCode } from './claude-code';
import { claudeCodeWeb } from './claude-code-web';
import { claudeCodeSdk } from './claude-code-sdk';
import { anthropicMessages } from './anthropic-messages';
import { openaiResponses } from './openai-responses';
import { codexCli } from './codex-cli';
import { geminiApi } from './gemini-api';
import { geminiCli } from './gemini-cli';

export const formats: FormatModule[] = [
  // Entries are added by each format's module, in detection order.
  inspectAiFormat, // Inspect logs first among JSON (§8 JSON rule 1, zip rule): before Chat (both hold messages)
  sweAgentFormat, // SWE-agent before mini-swe-agent (§8 JSON rule 2)
  miniSweAgentFormat, // before Chat: the bare fixture is a Chat-shaped array with mini-swe-agent's action blocks
  openhandsFormat, // event arrays (§8 JSON rule 9) and eval-output JSONL (§8 JSONL rule 7); no overlap with message arrays
  anthropicMessages, // Anthropic request/response/SSE before OpenAI Chat (§8 JSON rule 6 before 8)
  openaiResponses, // Responses input lists / Response objects / rollouts before OpenAI Chat (§8 JSON rule 7, JSONL rule 5)
  codexCli, // Codex rollouts before Claude Code: both have `type` (§8 JSONL rule 1 before 2)
  geminiCli, // Gemini CLI sessions: header {sessionId, projectHash} / $set lines (§8 JSONL rule 3, JSON rule 4)
  claudeCode, // Claude Code JSONL: after Codex (both have `type`), §8 JSONL rule 2
  claudeCodeWeb, // {"loglines":[…]} web export, §8 JSON rule 5
  geminiApi, // contents requests, responses, gemini-cli .responses replays (§8 JSON rule 4, JSONL rule 8)
  claudeCodeSdk, // SDK json array / stream-json (snake session_id), §8 JSONL rule 4, JSON rule 10
  // OpenAI Chat goes LAST among the message-array shapes (§8 JSON rule 8, JSONL rule 6): it claims
  // any role/content array, so every more specific format (Anthropic, mini-swe-agent, Inspect, …)
  // must come before it and wins ties. Add new formats ABOVE this line.
  openaiChat,
];

export function formatById(id: string): FormatModule | undefined {
  return formats.find((f) => f.id === id);
}
