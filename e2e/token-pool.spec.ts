/**
 * Every core in the browser (issue 12): a large import whose model counts exactly (gpt-4o, o200k)
 * is counted by a pool of Web Workers, one per core, started by the engine's worker. The library
 * row and the Info tab show the total the CLI's `inspect --json` counts for the same file, and the
 * Info tab says on how many threads it was counted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { blockText } from '../lib/tokens/count';
import { POOL_MIN_CHARS } from '../lib/tokens/pool';
import { MAX_THREADS } from '../lib/engine/token-pool';
import { makeLargeOpenAiRequest } from '../bench/generate';
import { CORPUS, expect, SCREENSHOTS, test } from './fixtures';
import { cliInspect, tokensText } from './pages/cli';

function realTexts(): string[] {
  const out: string[] = [];
  for (const family of ['codex-cli', 'openai-chat'])
    for (const name of fs.readdirSync(path.join(CORPUS, family)).sort().slice(0, 3)) {
      const t = importBytes(name, new Uint8Array(fs.readFileSync(path.join(CORPUS, family, name))), { conversation: 1 }).transcript;
      for (const m of t.messages) for (const b of m.blocks) if (b.kind === 'text' || b.kind === 'tool_result') out.push(blockText(b));
    }
  return out.filter((t) => t.length > 20);
}

test('a large gpt-4o request is counted on every core: the CLI’s total, and the Info tab says how', async ({ library, inspector, page }, info) => {
  const file = info.outputPath('big-gpt-4o.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, makeLargeOpenAiRequest(realTexts(), POOL_MIN_CHARS * 1.5));
  const expected = cliInspect(file);
  expect(expected.format).toBe('openai-chat');

  await library.goto();
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  expect(cores, 'this check needs a machine with two cores or more').toBeGreaterThanOrEqual(2);
  const threads = Math.min(MAX_THREADS, cores);

  await library.importFile(file);
  const row = await library.waitForRow('big-gpt-4o.json');
  await expect(row).toHaveAttribute('data-tokens', String(expected.tokens.total));

  await library.open(row);
  await inspector.waitLoaded();
  await page.getByRole('tab', { name: 'Info', exact: true }).click();
  await expect(page.getByTestId('token-total')).toHaveAttribute('data-tokens', String(expected.tokens.total));
  await expect(page.getByTestId('token-total')).toHaveText(tokensText(expected.tokens.total));
  const counting = page.getByTestId('counting');
  await expect(counting).toHaveAttribute('data-threads', String(threads));
  await expect(counting).toHaveText(`Counted exactly (o200k, on ${threads} threads)`);
  await page.getByTestId('side-panel').screenshot({ path: path.join(SCREENSHOTS, 'issue12-token-pool-info.png') });
});

test('a small import is counted in the engine’s own thread, and a Claude session is estimated', async ({ library, inspector, page }) => {
  const counting = async (family: string, name: string) => {
    await library.goto();
    await library.importFile(path.join(CORPUS, family, name));
    await library.open(await library.waitForRow(name));
    await inspector.waitLoaded();
    await page.getByRole('tab', { name: 'Info', exact: true }).click();
    return page.getByTestId('counting');
  };
  const codex = await counting('codex-cli', 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl');
  await expect(codex).toHaveText('Counted exactly (o200k)');
  await expect(codex).toHaveAttribute('data-threads', '1');
  await expect(await counting('claude-code', 'claude-code-viewer_5c0375b4.jsonl')).toHaveText("Estimated as characters ÷ 4 (this model's tokenizer is not available offline)");
});
