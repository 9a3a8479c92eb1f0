/**
 * Gemini CLI: fires when the last prompt reaches 0.5 × the model limit (model.compressionThreshold).
 * The oldest ~70 % → <state_snapshot>; split only before a user turn. Plan: summarize the oldest
 * 70 % of the tokens (whole turns), newest 30 % verbatim.
 */
import { planStep, type PeerPolicy } from '../types';

export const geminiCli: PeerPolicy = {
  id: 'gemini-cli',
  label: 'Gemini CLI',
  triggerTokens: (m) => Math.floor(m.contextWindow * 0.5),
  action: 'oldest ~70 % → <state_snapshot> summary',
  keeps: 'newest 30 %',
  plan: () => [planStep('gemini-cli', [{ id: 'summarize', options: { fraction: 0.7, producer: 'gemini-cli' } }], 0)],
};
