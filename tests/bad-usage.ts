/**
 * A Claude Code session whose recorded usage is implausible next to its content (issue 31): the
 * generated coding session of bench/generate.ts with every call recording `input` tokens (10 by
 * default) and no cache, while the context the file shows grows to tens of thousands of tokens.
 * The walk of issue 31 found a real file recording 10 tokens a call for a context of 1.5M.
 */
import { makeClaudeCodeSession } from '../bench/generate';

export function badUsageSession(turns = 40, input = 10): string {
  return (
    makeClaudeCodeSession(turns)
      .trim()
      .split('\n')
      .map((line) => {
        const v = JSON.parse(line);
        if (v.message?.usage) v.message.usage = { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: v.message.usage.output_tokens, service_tier: 'standard' };
        return JSON.stringify(v);
      })
      .join('\n') + '\n'
  );
}
