/**
 * Issue 25, the app's half: the agents' sessions listed by the local server (`contextscope open`
 * on a temporary HOME holding real corpus sessions of Claude Code, Codex and Gemini CLI), opened
 * without an upload, compacted and resumed as a new session from the export dialog, and followed
 * live while the agent appends to the file. The static build (the config's own server) shows none
 * of it and says nothing broken.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { Workbench } from './pages/Workbench';
import { placeClaude, placeCodex, placeGemini, sha256, startServer, tempHome, type PlacedSession, type RunningServer } from './sessions-home';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

const CLAUDE = 'vibecodingtracker_claude_code_v1.0.95.jsonl';
const CLAUDE_2 = 'claude-code-viewer_5c0375b4.jsonl';
const CODEX = 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl';
const GEMINI = 'vibecodingtracker_gemini_session.jsonl';

let home: string;
let server: RunningServer;
let placed: PlacedSession[];

test.describe('with the local server', () => {
  test.describe.configure({ mode: 'serial' });

  test.beforeAll(async () => {
    home = tempHome();
    placed = [placeClaude(home, 'claude-code', CLAUDE), placeClaude(home, 'claude-code', CLAUDE_2), placeCodex(home, CODEX), placeGemini(home, GEMINI)];
    server = await startServer(home);
  });
  test.afterAll(async () => {
    await server?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  const session = (p: Page, s: PlacedSession) => p.locator(`[data-testid="session-row"][data-path="${s.path}"]`);
  /** Open a listed session: its bytes come through the API and are imported (slow on a busy machine). */
  const open = async (p: Page, s: PlacedSession) => {
    await session(p, s).getByTestId('open-session').click();
    await expect(p).toHaveURL(/\/inspect\?id=/, { timeout: 90_000 });
  };

  test('the library lists the sessions of all three agents, without an upload', async ({ page }) => {
    await page.goto(server.url);
    const section = page.getByTestId('sessions');
    await expect(section).toBeVisible();
    // The secret leaves the address bar once read.
    await expect.poll(() => page.url()).not.toContain('token=');
    for (const s of placed) await expect(session(page, s)).toBeVisible();
    await expect(page.getByTestId('sessions-count')).toHaveText(`(${placed.length})`);
    for (const agent of ['claude-code', 'codex-cli', 'gemini-cli']) await expect(section.locator(`[data-testid="session-row"][data-agent="${agent}"]`).first()).toBeVisible();
    // The Claude Code session's first prompt and project folder, as its file records them.
    const claude = session(page, placed[0]);
    await expect(claude.getByTestId('session-prompt')).toContainText('go.mod');
    await expect(claude).toContainText(path.basename(placed[0].cwd));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'library-sessions.png') });

    // Filters: by agent, and by text over prompt, folder, id and model.
    await page.getByTestId('sessions-agent').selectOption('codex-cli');
    await expect(section.getByTestId('session-row')).toHaveCount(1);
    await expect(session(page, placed[2])).toBeVisible();
    await page.getByTestId('sessions-agent').selectOption('');
    await page.getByTestId('sessions-filter').fill(placed[1].sessionId);
    await expect(section.getByTestId('session-row')).toHaveCount(1);
    await expect(session(page, placed[1])).toBeVisible();
    await page.getByTestId('sessions-filter').fill('no session says this');
    await expect(page.getByTestId('sessions-none-match')).toBeVisible();
    // Nothing was imported by listing.
    await expect(page.getByTestId('library-empty')).toBeVisible();
  });

  test('opening a session imports it and shows the inspector; the file is not changed', async ({ page, inspector }) => {
    const before = sha256(placed[2].path);
    await page.goto(server.url);
    await open(page, placed[2]);
    await inspector.waitLoaded();
    await expect(inspector.title).toBeVisible();
    await expect(page.getByTestId('live-strip')).toHaveAttribute('data-live', 'following');
    expect(sha256(placed[2].path)).toBe(before);
    await inspector.backToLibrary();
    await expect(page.getByTestId('transcript-row')).toHaveCount(1);
  });

  for (const c of [
    { label: 'Claude Code', index: 0, agent: 'claude-code', command: /^cd \S+ && claude --resume ([0-9a-f-]{36})$/ },
    { label: 'Codex', index: 2, agent: 'codex-cli', command: /^codex resume ([0-9a-f-]{36})$/ },
    { label: 'Gemini CLI', index: 3, agent: 'gemini-cli', command: /^cd \S+ && gemini --resume ([0-9a-f-]{36})$/ },
  ] as const) {
    test(`${c.label}: compact, then "Resume as a new session" writes a new session into the agent's store`, async ({ page, inspector }) => {
      test.setTimeout(150_000);
      const s = placed[c.index];
      const original = sha256(s.path);
      await page.goto(server.url);
      await open(page, s);
      await inspector.waitLoaded();
      const wb = new Workbench(page);
      await wb.autoHalf();
      if (c.agent !== 'claude-code') await wb.keepLast(0);
      await expect.poll(async () => { const p = await wb.contextTokens(); return p.before - p.after; }, { timeout: 30_000 }).toBeGreaterThan(0);
      // A preview works on a fixed snapshot, and says so.
      await expect(page.getByTestId('live-strip')).toHaveAttribute('data-live', 'paused');
      await wb.apply();
      await expect(page.getByTestId('inspector')).not.toHaveAttribute('data-version', 'original');

      await page.getByTestId('export').click();
      await expect(page.getByTestId('export-format')).toHaveValue(c.agent);
      const panel = page.getByTestId('resume-panel');
      await expect(panel).toBeVisible();
      await expect(page.getByTestId('resume-cwd')).toHaveValue(s.cwd);
      await page.getByTestId('resume-run').click();
      await expect(page.getByTestId('resume-done')).toBeVisible({ timeout: 30_000 });
      const command = (await page.getByTestId('resume-command').textContent()) ?? '';
      const m = c.command.exec(command);
      expect(m, command).not.toBeNull();
      const newId = m![1];
      expect(newId).not.toBe(s.sessionId);
      expect(await page.getByTestId('resume-id').textContent()).toBe(newId);
      const written = (await page.getByTestId('resume-path').textContent()) ?? '';
      // In the agent's own store, under a name carrying the new id, next to nothing it replaced.
      const store = { 'claude-code': path.join(home, '.claude', 'projects'), 'codex-cli': path.join(home, '.codex', 'sessions'), 'gemini-cli': path.join(home, '.gemini', 'tmp') }[c.agent];
      expect(written.startsWith(store + path.sep)).toBe(true);
      expect(path.basename(written)).toContain(c.agent === 'gemini-cli' ? newId.slice(0, 8) : newId);
      expect(written).not.toBe(s.path);
      const text = fs.readFileSync(written, 'utf8');
      expect(text).toContain(newId);
      if (c.agent === 'claude-code') {
        // Every record that carries a session id carries the new one.
        const ids = new Set(text.split('\n').filter((l) => l.trim()).map((l) => (JSON.parse(l) as { sessionId?: string }).sessionId).filter(Boolean));
        expect([...ids]).toEqual([newId]);
      } else if (c.agent === 'codex-cli') {
        const meta = JSON.parse(text.split('\n')[0]) as { type: string; payload: { id: string } };
        expect(meta.payload.id).toBe(newId);
      } else {
        const header = JSON.parse(text.split('\n')[0]) as { sessionId: string };
        expect(header.sessionId).toBe(newId);
      }
      // The source session is byte-identical.
      expect(sha256(s.path)).toBe(original);
      await page.screenshot({ path: path.join(SCREENSHOTS, `export-resume-${c.agent}.png`) });
      await page.getByTestId('resume-copy').click();
      await expect(page.getByTestId('resume-copy')).toHaveText(/Copied|Copy/);

      // The library lists the fork under the session it came from.
      await page.keyboard.press('Escape');
      await inspector.backToLibrary();
      const source = session(page, s);
      await expect(source).toBeVisible();
      const fork = page.locator(`[data-testid="session-row"][data-path="${written}"]`);
      // The list is read again on the way back (and by Refresh); the fork is under its source.
      await expect(async () => {
        if ((await fork.count()) === 0) {
          await page.getByTestId('sessions-refresh').click();
          const toggle = source.getByTestId('session-children');
          await expect(toggle).toBeVisible({ timeout: 5_000 });
          if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
        }
        await expect(fork).toHaveAttribute('data-kind', 'fork', { timeout: 5_000 });
      }).toPass({ timeout: 60_000 });
    });
  }

  test('live: records appended while the inspector is open appear on the timeline', async ({ page, inspector }) => {
    test.setTimeout(120_000);
    // A session caught mid-run: its first 40 lines now, the rest written while we watch.
    const full = fs.readFileSync(placed[1].source, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const dir = path.join(home, '.claude', 'projects', '-work-live');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${placed[1].sessionId.slice(0, 8)}-live.jsonl`);
    fs.writeFileSync(file, full.slice(0, 40).join('\n') + '\n');
    const live = { ...placed[1], path: file };

    await page.goto(server.url);
    await open(page, live);
    await inspector.waitLoaded();
    const strip = page.getByTestId('live-strip');
    await expect(strip).toHaveAttribute('data-live', 'following');
    const bars = async () => Number(await inspector.timeline.getAttribute('data-turns'));
    const messages = async () => Number(await page.getByTestId('inspector').getAttribute('data-messages'));
    const before = await messages();
    const barsBefore = await bars();

    // Half a line: nothing happens until its newline comes.
    const next = full.slice(40);
    fs.appendFileSync(file, next[0].slice(0, 30));
    await page.waitForTimeout(1_500);
    expect(await messages()).toBe(before);
    await expect(strip).toHaveAttribute('data-live', 'following');

    // The rest of the session arrives: the timeline grows within 2 s.
    // (all but the last record, which comes while the page is held on a snapshot, below)
    fs.appendFileSync(file, next[0].slice(30) + '\n' + next.slice(1, -1).join('\n') + '\n');
    const appendedAt = Date.now();
    await expect.poll(messages, { timeout: 20_000, intervals: [100] }).toBeGreaterThan(before);
    const seenAfter = Date.now() - appendedAt;
    test.info().annotations.push({ type: 'live', description: `new records on screen ${seenAfter} ms after the append` });
    console.log(`live: new records on screen ${seenAfter} ms after the append`);
    await expect.poll(bars).toBeGreaterThanOrEqual(barsBefore);

    // A selection holds the page on its snapshot; what is written meanwhile is counted, not applied.
    const held = await messages();
    await page.getByTestId('axis-toggle').waitFor();
    const box = (await inspector.timeline.boundingBox())!;
    await page.mouse.move(box.x + 70, box.y + 150);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + 150, { steps: 5 });
    await page.mouse.up();
    await expect(strip).toHaveAttribute('data-live', 'paused');
    fs.appendFileSync(file, full[full.length - 1] + '\n');
    await expect(page.getByTestId('live-waiting')).toContainText('1 new record');
    expect(await messages()).toBe(held);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-live-paused.png') });
    await page.getByTestId('live-follow').click();
    await expect(strip).toHaveAttribute('data-live', 'following');
    await expect.poll(messages, { timeout: 20_000 }).toBeGreaterThan(held);

    // One library row for the followed session: superseded snapshots without steps are dropped.
    await inspector.backToLibrary();
    await expect.poll(() => page.getByTestId('transcript-row').count(), { timeout: 10_000 }).toBe(1);
  });
});

test.describe('a store of thousands of sessions', () => {
  let bigHome: string;
  let bigServer: RunningServer;
  const COUNT = 2_000;
  test.beforeAll(async () => {
    // 2,000 copies of a real Claude Code session, each under its own id (the file name), in 20 projects.
    bigHome = tempHome();
    const bytes = fs.readFileSync(corpusFile('claude-code', 'simonw_sample_session.jsonl'));
    for (let i = 0; i < COUNT; i++) {
      const dir = path.join(bigHome, '.claude', 'projects', `-work-project-${i % 20}`);
      if (i < 20) fs.mkdirSync(dir, { recursive: true });
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      fs.writeFileSync(path.join(dir, `${id}.jsonl`), bytes);
    }
    bigServer = await startServer(bigHome);
  });
  test.afterAll(async () => {
    await bigServer?.stop();
    if (bigHome) fs.rmSync(bigHome, { recursive: true, force: true });
  });

  test('2,000 sessions list, draw a screenful of rows and filter', async ({ page }) => {
    await page.goto(bigServer.url);
    await expect(page.getByTestId('sessions-count')).toHaveText('(2,000)', { timeout: 30_000 });
    const rows = page.getByTestId('sessions').getByTestId('session-row');
    // Virtualized: a screenful (and its overscan) is in the page, not 2,000 rows.
    expect(await rows.count()).toBeLessThan(40);
    expect(await rows.count()).toBeGreaterThan(5);
    await page.getByTestId('sessions-filter').fill('000000001234');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute('data-path', /00000000-0000-4000-8000-000000001234\.jsonl$/);
    await page.getByTestId('sessions-filter').fill('');
    // Scrolled to the end, the last rows are drawn.
    await page.getByTestId('sessions-scroller').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => rows.count()).toBeGreaterThan(5);
    expect(await rows.count()).toBeLessThan(40);
  });
});

test('without the local server: the library works as before and mentions no sessions; the export dialog gives the CLI command to resume', async ({ page, library, inspector }) => {
  await library.goto();
  await expect(page.getByTestId('drop-zone')).toBeVisible();
  await expect(page.getByTestId('library-empty')).toBeVisible();
  await expect(page.getByTestId('sessions')).toHaveCount(0);
  await expect(page.getByTestId('sessions-unavailable')).toHaveCount(0);

  // The export dialog then says how to resume from the CLI.
  const file = corpusFile('claude-code', CLAUDE);
  await library.importFile(file);
  await library.open(await library.waitForRow(path.basename(file)));
  await inspector.waitLoaded();
  await expect(page.getByTestId('live-strip')).toHaveCount(0);
  await page.getByTestId('export').click();
  await expect(page.getByTestId('resume-cli')).toContainText('contextscope resume FILE --agent claude-code');
  await expect(page.getByTestId('resume-run')).toHaveCount(0);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'export-resume-no-api.png') });
  // A conversion is no agent's session: the dialog says to pick the agent's own format.
  await page.getByTestId('export-format').selectOption('openai-chat');
  await expect(page.getByTestId('resume-elsewhere')).toContainText('choose its own format (Claude Code)');
  await expect(page.getByTestId('resume-panel')).toHaveCount(0);
});
