/**
 * The CLI's provider configuration (flags + environment, key from the environment only) and the
 * call the compact verb makes, end to end over a real HTTP server on a real Claude Code session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../lib/compaction/types';
import { importBytes } from '../../lib/formats/import';
import { CliProviderError, DEFAULT_MODELS, projectWithProviderSummaries, providerFromEnvOrFlags } from '../../lib/summarize/cli-provider';
import { corpusFiles } from '../corpus';
import { startWireServer, type WireServer } from './wire-server';

const SECRET = 'sk-cli-SECRET-abcdef0123456789';

describe('providerFromEnvOrFlags', () => {
  it('without --provider: offline, flags passed through untouched', () => {
    const r = providerFromEnvOrFlags(['file.jsonl', '--strategy', 'summarize', '--keep-last', '2'], {});
    expect(r.provider).toBeUndefined();
    expect(r.rest).toEqual(['file.jsonl', '--strategy', 'summarize', '--keep-last', '2']);
    expect(r.style).toBe('structured');
  });

  it('reads flags (both spellings) and takes the key from the environment', () => {
    const r = providerFromEnvOrFlags(['f', '--provider', 'anthropic', '--model=claude-x', '--strategy', 'summarize'], { ANTHROPIC_API_KEY: SECRET });
    expect(r.provider?.id).toBe('anthropic:claude-x');
    expect(r.rest).toEqual(['f', '--strategy', 'summarize']);
    expect(r.describe).toBe('anthropic:claude-x at https://api.anthropic.com (key from the environment)');
    expect(r.describe).not.toContain(SECRET);
    const viaContextscope = providerFromEnvOrFlags(['--provider', 'gemini'], { CONTEXTSCOPE_API_KEY: SECRET });
    expect(viaContextscope.provider?.id).toBe(`gemini:${DEFAULT_MODELS.gemini}`);
  });

  it('the compact verb keeps its own --model: the summarizing model is --summary-model there', () => {
    const r = providerFromEnvOrFlags(['f', '--model', 'claude-opus-4', '--provider', 'anthropic', '--summary-model', 'claude-haiku-x'], { ANTHROPIC_API_KEY: SECRET }, { modelFlag: '--summary-model' });
    expect(r.provider?.id).toBe('anthropic:claude-haiku-x');
    expect(r.rest).toEqual(['f', '--model', 'claude-opus-4']);
    expect(providerFromEnvOrFlags(['f', '--model', 'gpt-4o'], {}, { modelFlag: '--summary-model' }).rest).toEqual(['f', '--model', 'gpt-4o']);
    expect(() => providerFromEnvOrFlags(['--summary-model', 'x'], {}, { modelFlag: '--summary-model' })).toThrow(/--summary-model needs --provider/);
  });

  it('environment-only configuration works too', () => {
    const r = providerFromEnvOrFlags([], { CONTEXTSCOPE_PROVIDER: 'openai', OPENAI_API_KEY: SECRET, CONTEXTSCOPE_MODEL: 'gpt-test' });
    expect(r.provider?.id).toBe('openai:gpt-test');
  });

  it('a local server needs no key; a hosted API does, and the message names the variables', () => {
    expect(providerFromEnvOrFlags(['--provider', 'openai', '--base-url', 'http://127.0.0.1:11434/v1', '--model', 'llama3.2'], {}).describe).toBe('openai:llama3.2 at http://127.0.0.1:11434 (no key)');
    expect(() => providerFromEnvOrFlags(['--provider', 'openai'], {})).toThrow(/CONTEXTSCOPE_API_KEY or OPENAI_API_KEY/);
    expect(() => providerFromEnvOrFlags(['--provider', 'gemini'], {})).toThrow(/GEMINI_API_KEY or GOOGLE_API_KEY/);
  });

  it('rejects bad values with a usage message', () => {
    expect(() => providerFromEnvOrFlags(['--provider', 'mistral'], {})).toThrow(CliProviderError);
    expect(() => providerFromEnvOrFlags(['--provider', 'openai', '--base-url', 'ftp://x'], { OPENAI_API_KEY: SECRET })).toThrow(/http\(s\) URL/);
    expect(() => providerFromEnvOrFlags(['--model', 'x'], {})).toThrow(/needs --provider/);
    expect(() => providerFromEnvOrFlags(['--provider'], {})).toThrow(/needs a value/);
    expect(() => providerFromEnvOrFlags(['--summary-style', 'poem'], {})).toThrow(/summary-style/);
    expect(() => providerFromEnvOrFlags(['--provider', 'anthropic', '--timeout', 'soon'], { ANTHROPIC_API_KEY: SECRET })).toThrow(/--timeout/);
  });

  it('a prompt file replaces the user template and must hold {{conversation}}', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-prompt-'));
    const good = path.join(dir, 'good.txt');
    const bad = path.join(dir, 'bad.txt');
    fs.writeFileSync(good, 'Summarize tersely:\n{{conversation}}');
    fs.writeFileSync(bad, 'no placeholder');
    expect(providerFromEnvOrFlags(['--prompt-file', good, '--summary-style', 'narrative'], {}).template.user).toBe('Summarize tersely:\n{{conversation}}');
    expect(() => providerFromEnvOrFlags(['--prompt-file', bad], {})).toThrow(/\{\{conversation\}\}/);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('projectWithProviderSummaries (the compact verb’s call)', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer('openai', [{ kind: 'respond', answer: ({ prompt }) => `## Active Task\nCLI LLM SUMMARY (${prompt.length} chars of prompt)` }]);
  });
  afterAll(async () => {
    await server.close();
  });

  const file = corpusFiles('claude-code').find((f) => f.endsWith('vibecodingtracker_claude_code_v1.0.95.jsonl'))!;
  const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const steps: Step[] = [{ id: 'cli', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'summarize', options: { chunkTurns: 4 } }], keepLast: 2, createdAt: '2026-01-01T00:00:00Z' }];

  it('fills the summaries through the provider and reports progress lines without the key', async () => {
    const cli = providerFromEnvOrFlags(['--provider', 'openai', '--base-url', server.baseUrl, '--model', 'local-model'], { OPENAI_API_KEY: SECRET });
    const lines: string[] = [];
    const result = await projectWithProviderSummaries({ log, steps, cli, onLine: (l) => lines.push(l) });
    expect(result.failures).toEqual([]);
    expect(result.produced.length).toBeGreaterThan(0);
    const summary = result.projection.messages.find((m) => m.synthetic === 'summary')!;
    expect(summary.blocks[0].kind === 'summary' && summary.blocks[0].text).toMatch(/^## Active Task\nCLI LLM SUMMARY/);
    expect(lines[0]).toMatch(/^summarizing turns 1–\d+ with openai:local-model…$/);
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('without a provider it is the offline projection', async () => {
    const cli = providerFromEnvOrFlags([], {});
    const before = server.requests.length;
    const result = await projectWithProviderSummaries({ log, steps, cli });
    expect(server.requests.length).toBe(before);
    const summary = result.projection.messages.find((m) => m.synthetic === 'summary')!;
    expect(summary.blocks[0].kind === 'summary' && summary.blocks[0].text).toMatch(/^## Active Task/);
    expect(result.projection.summaryRequests!.length).toBeGreaterThan(0);
  });
});
