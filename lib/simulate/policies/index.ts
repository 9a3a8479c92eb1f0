/** Every peer policy, in the order the inspector lists them. */
import type { PeerPolicy } from '../types';
import { anthropicClearThinking, anthropicClearToolUses, anthropicCompact } from './anthropic-context-editing';
import { claudeCodeCompact, claudeCodeMicrocompact } from './claude-code';
import { codex } from './codex';
import { geminiCli } from './gemini-cli';
import { opencodePrune } from './opencode';
import { aider, cline, goose, inspectAi, openaiResponsesCompaction, openhands } from './others';
import { jp, seed002, seed004, sven } from './seeds';

export const PEER_POLICIES: readonly PeerPolicy[] = [
  claudeCodeCompact,
  claudeCodeMicrocompact,
  codex,
  geminiCli,
  opencodePrune,
  anthropicClearToolUses,
  anthropicClearThinking,
  anthropicCompact,
  goose,
  cline,
  aider,
  openhands,
  inspectAi,
  openaiResponsesCompaction,
  jp,
  sven,
  seed002,
  seed004,
];

export function policyById(id: string): PeerPolicy | undefined {
  return PEER_POLICIES.find((p) => p.id === id);
}
