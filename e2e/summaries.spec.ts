/**
 * Summaries with the user's own LLM, end to end in the browser: real HTTP servers on 127.0.0.1
 * (started here, in the test process) speak the OpenAI chat completions wire format (streamed, SSE)
 * and the Anthropic Messages wire format, with CORS because the page calls them directly.
 *
 * Settings → Test connection → Save; a real corpus transcript → select turns → the summarize
 * reducer → "Write with the LLM": the server's marker text is the summary in the Diff tab, survives
 * Apply and Export, and the request carried the key. Failure modes (500, 429 + Retry-After,
 * malformed JSON, empty content, slower than the timeout) show their specific reason, and the
 * preview falls back the way Settings say (emergency): no summary stands in, the Report tab names
 * the fallback and the reason, and the reason stays in the Plan tab after leaving it. Throughout, the key never appears in
 * console output, page errors, downloaded files or IndexedDB outside the settings row.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Download, Page } from '@playwright/test';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { collectConsole, completionRequests, indexedDbTextOutsideSettings, startMockLlm, type WireServer } from './mock-llm';
import { SettingsPage } from './pages/SettingsPage';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';

const KEY = 'sk-test-SECRET-12345';
// Claude Code (10 turns): its exporter writes a summary as a compact_boundary line + an
// isCompactSummary user line holding the summary text. (The Codex corpus files begin with compacted
// history, so their early turns are outside the model's view: nothing there to summarize.)
const FILE = corpusFile('claude-code', 'vibecodingtracker_claude_code_v1.0.95.jsonl');

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

/** A marker no offline summary and no transcript can contain. */
function marker(tag: string): string {
  return `LLM-SUMMARY-${tag}-${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
}

/** Import the corpus file, open it, select turns 2–5 and pick the summarize reducer. */
async function openAndPlanSummary(page: Page, library: import('./pages/LibraryPage').LibraryPage, inspector: import('./pages/InspectorPage').InspectorPage): Promise<Workbench> {
  await library.goto();
  await library.importFile(FILE);
  await library.open(await library.waitForRow(path.basename(FILE)));
  await inspector.waitLoaded();
  const timeline = new TimelineCanvas(page);
  expect(await inspector.turns()).toBeGreaterThan(6);
  await timeline.dragSelect(1, 4);
  await timeline.expectSelection([1, 4]);
  const wb = new Workbench(page);
  await wb.pickReducers('summarize');
  await wb.previewTokens();
  return wb;
}

function summariesBox(page: Page) {
  return page.getByRole('region', { name: 'Summaries' });
}

/**
 * "Write with the LLM" and wait for its result line to read `expected` (a result left from an
 * earlier run reads differently, so it cannot satisfy the wait).
 */
async function writeWithLlm(page: Page, expected: RegExp): Promise<string> {
  const box = summariesBox(page);
  await box.getByRole('button', { name: 'Write with the LLM' }).click();
  const result = box.locator('p').filter({ hasText: /summar(y|ies) written|Cancelled|could not/i });
  await expect(result).toHaveText(expected, { timeout: 40_000 });
  // The run is over (no Cancel); after a success the button goes too: nothing is left to write.
  await expect(box.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  return (await result.textContent()) ?? '';
}

/** The Diff tab's synthetic summary messages, as text. */
async function diffSummaries(page: Page, wb: Workbench): Promise<string[]> {
  const panel = await wb.tab('Diff');
  await expect(panel.getByTestId('diff')).toBeVisible();
  return panel.getByTestId('diff-message').filter({ hasText: 'summary of turns' }).allTextContents();
}

/** Export the shown version with its audit record; returns every downloaded file as text. */
async function exportWithAudit(page: Page): Promise<{ file: string; audit: string }> {
  await page.getByTestId('export').click();
  await expect(page.getByTestId('export-audit')).toBeChecked();
  const downloads: Download[] = [];
  const onDownload = (d: Download) => downloads.push(d);
  page.on('download', onDownload);
  await page.getByTestId('export-download').click();
  await expect(page.getByTestId('export-done')).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => downloads.length).toBe(2);
  page.off('download', onDownload);
  const texts = await Promise.all(downloads.map(async (d) => ({ name: d.suggestedFilename(), text: fs.readFileSync((await d.path())!, 'utf8') })));
  await page.keyboard.press('Escape');
  const audit = texts.find((t) => t.name.endsWith('.audit.json'));
  const file = texts.find((t) => !t.name.endsWith('.audit.json'));
  if (!audit || !file) throw new Error(`downloads: ${texts.map((t) => t.name).join(', ')}`);
  return { file: file.text, audit: audit.text };
}

/** The key is nowhere but the request headers: not in console output, page errors, or IndexedDB outside Settings. */
async function expectKeyNowhere(page: Page, consoleLines: string[]): Promise<void> {
  expect(consoleLines.filter((l) => l.includes(KEY))).toEqual([]);
  // Not even the secret part of it (a partial leak, e.g. a key cut at a different prefix).
  expect(consoleLines.filter((l) => l.includes('SECRET-12345'))).toEqual([]);
  const stored = await indexedDbTextOutsideSettings(page);
  // The transcript's rows and the summaries were read: the check looked at real data.
  expect(Object.keys(stored)).toEqual(expect.arrayContaining(['contextscope/chunks', 'contextscope/summaries', 'contextscope/versions']));
  expect(stored['contextscope/chunks'].length).toBeGreaterThan(1000);
  const leaking = Object.entries(stored).filter(([, text]) => text.includes('SECRET-12345')).map(([table]) => table);
  expect(leaking, 'IndexedDB tables holding the key').toEqual([]);
}

test.describe('summaries with a real LLM server', () => {
  let server: WireServer | undefined;
  test.afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test('OpenAI-compatible (streamed): Test connection, the LLM summary in the preview, Apply, Export without the key', async ({ page, library, inspector }) => {
    test.setTimeout(90_000);
    const consoleLines = collectConsole(page);
    const mark = marker('OPENAI');
    // The first request is Test connection (never streamed); every later one gets the marker summary.
    server = await startMockLlm('openai', [{ kind: 'ok', text: 'pong' }, { kind: 'stream', pieces: ['## Active Task\n', `${mark} `, 'the user and the agent worked on the tracker.'] }]);

    const settings = new SettingsPage(page);
    await settings.goto();
    await settings.fill({ provider: 'OpenAI-compatible', baseUrl: server.baseUrl, model: 'mock-gpt', apiKey: KEY, timeoutSeconds: 5, stream: true });
    expect(await settings.testConnection()).toMatch(/^Connected: mock-gpt answered in \d+ ms/);
    await settings.save();
    await expect(page.getByTestId('masked-key')).toHaveText('sk-…2345');
    await expect(page.locator('body')).not.toContainText(KEY);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'settings-llm-provider.png'), fullPage: true });
    const afterTest = completionRequests(server).length;
    expect(afterTest).toBe(1);

    const wb = await openAndPlanSummary(page, library, inspector);
    // Before the LLM: the offline summarizer stands in, and the box offers the LLM for it.
    const offline = await diffSummaries(page, wb);
    expect(offline.length).toBeGreaterThan(0);
    expect(offline.join('\n')).not.toContain(mark);
    await wb.tab('Plan');
    // The box names the configured provider, with the key masked.
    await expect(summariesBox(page)).toContainText(`openai:mock-gpt at ${new URL(server.baseUrl).origin}, key sk-…2345`);
    await expect(summariesBox(page)).toContainText('1 span summarized offline in this preview');

    const result = await writeWithLlm(page, /^\d+ summar(y|ies) written$/);
    const calls = completionRequests(server).slice(afterTest);
    expect(result).toBe(`${calls.length} summar${calls.length === 1 ? 'y' : 'ies'} written`);
    expect(calls.length).toBeGreaterThan(0);
    // The provider was really called, streamed, with the key in the Authorization header only.
    for (const c of calls) {
      expect(c.url).toBe('/v1/chat/completions');
      expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
      expect((c.body as { stream?: boolean; model?: string }).stream).toBe(true);
      expect((c.body as { model?: string }).model).toBe('mock-gpt');
      expect(JSON.stringify(c.body)).not.toContain(KEY);
    }

    const llm = await diffSummaries(page, wb);
    expect(llm.length).toBeGreaterThan(0);
    expect(llm.every((t) => t.includes(mark))).toBe(true);
    // The Diff tab scrolled to the LLM's summary (the marker text) for the screenshot.
    const llmSummary = page.getByRole('tabpanel').getByTestId('diff-message').filter({ hasText: mark }).first();
    await llmSummary.scrollIntoViewIfNeeded();
    await expect(llmSummary).toBeInViewport();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'summaries-llm-preview.png') });

    await wb.tab('Plan');
    await wb.apply();
    await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 30_000 });
    const exported = await exportWithAudit(page);
    expect(exported.file).toContain(mark);
    expect(exported.file).not.toContain(KEY);
    expect(exported.audit).toContain(mark);
    expect(exported.audit).not.toContain(KEY);
    // Applying and exporting reuse the stored summary: no new request.
    expect(completionRequests(server).length).toBe(afterTest + calls.length);
    await expectKeyNowhere(page, consoleLines);
  });

  test('Anthropic Messages: x-api-key and the direct-browser-access header, the summary in the preview and the export', async ({ page, library, inspector }) => {
    test.setTimeout(90_000);
    const consoleLines = collectConsole(page);
    const mark = marker('ANTHROPIC');
    server = await startMockLlm('anthropic', [{ kind: 'respond', answer: ({ prompt }) => `## Active Task\n${mark} (${prompt.length} characters read)` }]);

    const settings = new SettingsPage(page);
    await settings.goto();
    await settings.fill({ provider: 'Anthropic', baseUrl: server.baseUrl, model: 'mock-claude', apiKey: KEY, timeoutSeconds: 5, stream: false });
    expect(await settings.testConnection()).toMatch(/^Connected: mock-claude answered in \d+ ms/);
    await settings.save();
    const afterTest = completionRequests(server).length;

    const wb = await openAndPlanSummary(page, library, inspector);
    const result = await writeWithLlm(page, /^\d+ summar(y|ies) written$/);
    const calls = completionRequests(server).slice(afterTest);
    expect(calls.length).toBeGreaterThan(0);
    expect(result).toBe(`${calls.length} summar${calls.length === 1 ? 'y' : 'ies'} written`);
    for (const c of calls) {
      expect(c.url).toBe('/v1/messages');
      expect(c.headers['x-api-key']).toBe(KEY);
      expect(c.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
      expect(c.headers['anthropic-version']).toBe('2023-06-01');
      expect(c.headers.authorization).toBeUndefined();
      const body = c.body as { model: string; system: string; messages: Array<{ role: string; content: string }> };
      expect(body.model).toBe('mock-claude');
      expect(body.messages[0].role).toBe('user');
      // The span really was sent: the prompt carries the transcript's turns.
      expect(body.messages[0].content.length).toBeGreaterThan(200);
    }
    const llm = await diffSummaries(page, wb);
    expect(llm.length).toBeGreaterThan(0);
    expect(llm.every((t) => t.includes(mark))).toBe(true);

    await wb.tab('Plan');
    await wb.apply();
    await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 30_000 });
    const exported = await exportWithAudit(page);
    expect(exported.file).toContain(mark);
    expect(exported.file).not.toContain(KEY);
    expect(exported.audit).not.toContain(KEY);
    await expectKeyNowhere(page, consoleLines);
  });

  test('failure modes: 500, 429 with Retry-After, malformed JSON, empty content, slower than the timeout → the reason, and the preview falls back', async ({ page, library, inspector }) => {
    test.setTimeout(120_000); // two 5 s timeouts (the retry) and 1 s waits are part of it
    const consoleLines = collectConsole(page);
    server = await startMockLlm('openai', [{ kind: 'ok', text: 'pong' }]);

    const settings = new SettingsPage(page);
    await settings.goto();
    // 5 s is the shortest timeout the form allows; the slow server answers after 7 s.
    await settings.fill({ provider: 'OpenAI-compatible', baseUrl: server.baseUrl, model: 'mock-gpt', apiKey: KEY, timeoutSeconds: 5, stream: false, onFailure: 'emergency' });
    expect(await settings.testConnection()).toMatch(/^Connected: mock-gpt answered/);
    await settings.save();

    const wb = await openAndPlanSummary(page, library, inspector);
    const offline = await diffSummaries(page, wb);
    expect(offline.length).toBeGreaterThan(0);
    const tokensBefore = await (async () => {
      await wb.tab('Plan');
      return wb.previewTokens();
    })();

    const cases: Array<{ name: string; script: WireServer['script']; reason: RegExp; attempts: number; screenshot?: boolean }> = [
      { name: '500', script: [{ kind: 'status', status: 500, body: { error: { message: `upstream exploded for ${KEY}` } } }], reason: /OpenAI-compatible had a server error \(HTTP 500\)\. Try again later\./, attempts: 2 },
      { name: '429', script: [{ kind: 'status', status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached' } } }], reason: /rate limiting requests \(HTTP 429\); retry after 1 second\..*Rate limit reached/, attempts: 2 },
      { name: 'malformed JSON', script: [{ kind: 'malformed' }], reason: /sent a reply that is not in the expected format at http:\/\/127\.0\.0\.1:\d+/, attempts: 1 },
      { name: 'empty content', script: [{ kind: 'empty' }], reason: /returned an empty summary/, attempts: 1 },
      { name: 'slow', script: [{ kind: 'slow', ms: 7_000, text: 'too late' }], reason: /did not answer in time/, attempts: 2, screenshot: true },
    ];
    for (const c of cases) {
      await test.step(c.name, async () => {
        server!.script = c.script;
        const before = completionRequests(server!).length;
        await wb.tab('Plan');
        const result = await writeWithLlm(page, new RegExp(`^0 summaries written, 1 failed: .*${c.reason.source}`));
        const attempts = completionRequests(server!).length - before;
        // Transient failures (5xx, 429, timeout) are retried once; the others are not.
        expect(attempts, `${c.name}: requests`).toBe(c.attempts);
        expect(result).toMatch(/^0 summaries written, 1 failed: /);
        expect(result).toMatch(c.reason);
        expect(result).not.toContain(KEY);
        if (c.screenshot) {
          // The Plan tab with this failure's reason in the Summaries box (it goes when the tab changes).
          await summariesBox(page).scrollIntoViewIfNeeded();
          await page.screenshot({ path: path.join(SCREENSHOTS, 'summaries-llm-failure.png') });
        }
        // The fallback the user chose (emergency): no summary stands in any more, the Report tab says why.
        await expect(page.getByRole('alert').filter({ hasText: 'Preview failed' })).toHaveCount(0);
        expect(await diffSummaries(page, wb)).toEqual([]);
        const report = await wb.tab('Report');
        const fallback = report.getByTestId('summary-fallback');
        await expect(fallback).toContainText('fell back to emergency');
        await expect(fallback).toContainText(c.reason);
        await expect(fallback).not.toContainText(KEY);
        // The reason outlives the Plan tab's result line: back on the tab, it is still there.
        await wb.tab('Plan');
        await expect(summariesBox(page).getByText(/^Last run: 1 failed: /)).toContainText(c.reason);
        const tokens = await wb.previewTokens();
        expect(tokens.before).toBe(tokensBefore.before);
        expect(tokens.after, `${c.name}: the emergency fallback differs from the offline summary`).not.toBe(tokensBefore.after);
      });
    }
    // After the failures the plan still applies (with the emergency fallback) and exports.
    await wb.tab('Plan');
    await wb.apply();
    await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 30_000 });
    const exported = await exportWithAudit(page);
    expect(exported.file).not.toContain(KEY);
    expect(exported.audit).not.toContain(KEY);
    await expectKeyNowhere(page, consoleLines);
  });
});

test.describe('Native compaction (seed 002)', () => {
  let server: WireServer | undefined;
  test.afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test('offline: listed under summarize, unavailable, and says why', async ({ page, library, inspector }) => {
    await openAndPlanSummary(page, library, inspector);
    const option = page.getByTestId('native-option');
    await expect(option).toBeVisible();
    await expect(option.getByRole('checkbox', { name: 'native' })).toBeDisabled();
    await expect(page.getByTestId('native-unavailable')).toHaveText(/^Unavailable: Native compaction calls the provider’s own compaction API, and no provider is configured \(offline\)/);
    await page.getByTestId('native-option').screenshot({ path: path.join(SCREENSHOTS, 'plan-native-offline.png') });
  });

  test('OpenAI: the span goes to /v1/responses/compact, its compaction item stands in for the turns, Apply and Export carry it', async ({ page, library, inspector }) => {
    test.setTimeout(90_000);
    const id = `cmp_${marker('NATIVE')}`;
    server = await startMockLlm('openai', [{ kind: 'compact', id, text: '' }]);
    const settings = new SettingsPage(page);
    await settings.goto();
    await settings.fill({ provider: 'OpenAI-compatible', baseUrl: server.baseUrl, model: 'mock-gpt', apiKey: KEY, timeoutSeconds: 5, stream: false });
    await settings.save();
    const wb = await openAndPlanSummary(page, library, inspector);
    const native = page.getByTestId('native-option').getByRole('checkbox', { name: 'native' });
    await expect(native).toBeEnabled();
    // Issue 28: before Apply, the panel says what the app's export can carry (a note, not the encrypted item).
    await expect(page.getByTestId('native-carry')).toHaveText(/Apply and Export here write a note and the user messages it kept in its place, so the model no longer sees those turns; the CLI’s compact carries the item itself into OpenAI Responses requests and Codex rollouts\./);
    await native.check();
    // The plan's draft follows after the preview's debounce: wait for it before writing.
    await expect(page.getByTestId('previewing')).toHaveCount(0, { timeout: 20_000 });
    await writeWithLlm(page, /^\d+ summar(y|ies) written$/);
    const calls = completionRequests(server);
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) {
      expect(c.url).toBe('/v1/responses/compact');
      expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
      const body = c.body as { model: string; input: Array<{ type: string; call_id?: string }> };
      expect(body.model).toBe('mock-gpt');
      const calledIds = body.input.filter((i) => i.type === 'function_call').map((i) => i.call_id);
      const answered = new Set(body.input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id));
      for (const cid of calledIds) expect(answered.has(cid)).toBe(true);
    }
    const shown = await diffSummaries(page, wb);
    expect(shown.some((t) => t.includes('Native compaction by OpenAI (mock-gpt)') && t.includes(id))).toBe(true);
    await wb.tab('Plan');
    await wb.apply();
    await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 30_000 });
    const exported = await exportWithAudit(page);
    expect(exported.file).toContain(id);
    expect(exported.file).not.toContain(KEY);
  });
});
