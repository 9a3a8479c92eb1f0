import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, expectedTurns, SCREENSHOTS, test } from './fixtures';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test.describe('upload → inspector → export, on real corpus files', () => {
  test('Claude Code session: library row, timeline turns, byte-identical export of the original', async ({ library, inspector }) => {
    const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
    const turns = expectedTurns(file);
    expect(turns).toBeGreaterThan(1);

    await library.goto();
    const started = Date.now();
    await library.importFile(file);
    const row = await library.waitForRow('slopometry_transcript_opus45_compact.jsonl');
    test.info().annotations.push({ type: 'import-ms', description: `${Date.now() - started} ms for ${fs.statSync(file).size} bytes` });
    await expect(row).toContainText('Claude Code');
    expect(await library.rowTurns(row)).toBe(turns);

    const opening = Date.now();
    await library.open(row);
    await inspector.waitLoaded();
    test.info().annotations.push({ type: 'open-ms', description: `${Date.now() - opening} ms to timeline and first messages` });
    expect(await inspector.turns()).toBe(turns);
    await expect(inspector.page.getByTestId('turn-header')).not.toHaveCount(0);
    // 392 messages: the list is virtualized; the source's own compaction summary is in it.
    await expect(inspector.list).toHaveAttribute('data-virtual', 'yes');
    await expect(inspector.page.getByTestId('turn-header').first()).toBeVisible();

    // The hover card gives a turn's breakdown.
    const card = await inspector.hoverTurn(Math.floor(turns / 2));
    await expect(card).toContainText('Turn');
    // …with the context the session recorded at its last call, split into uncached input, cache
    // read and cache write (the parts add up to the recorded size; Claude Code reads its cache).
    const recorded = card.getByTestId('hover-recorded');
    await expect(recorded).toBeVisible();
    const parts = await card.getByTestId('hover-cache').evaluateAll((els) => els.map((e) => [e.getAttribute('data-part'), Number(e.getAttribute('data-tokens'))] as const));
    expect(parts.map(([p]) => p)).toEqual(['uncached input', 'cache read', 'cache write']);
    expect(parts.reduce((sum, [, n]) => sum + n, 0)).toBe(Number(await recorded.getAttribute('data-tokens')));
    expect(parts[1][1]).toBeGreaterThan(0);

    // Back in the library, the original exports byte for byte.
    await inspector.backToLibrary();
    const exported = await library.exportOriginal(library.row('slopometry_transcript_opus45_compact.jsonl'));
    expect(exported.equals(fs.readFileSync(file))).toBe(true);
  });

  test('OpenAI Chat container (tau-bench): pick conversation 3, timeline turns, byte-identical export', async ({ library, inspector }) => {
    const file = corpusFile('openai-chat', 'tau-bench_gpt-4o-airline_historical_trajectories.json');
    const turns = expectedTurns(file, 3);

    await library.goto();
    await library.importFile(file);
    await expect(library.picker).toBeVisible();
    await library.page.screenshot({ path: path.join(SCREENSHOTS, 'conversation-picker.png') });
    await library.chooseConversation(3);
    const row = await library.waitForRow('conversation 3');
    await expect(row).toContainText('OpenAI Chat');
    expect(await library.rowTurns(row)).toBe(turns);

    await library.open(row);
    await inspector.waitLoaded();
    expect(await inspector.turns()).toBe(turns);
    await expect(inspector.title).toContainText('task 3');

    await inspector.backToLibrary();
    const exported = await library.exportOriginal(library.row('conversation 3'));
    expect(exported.equals(fs.readFileSync(file))).toBe(true);
  });
});

test('drop a container file and import all its conversations (Inspect eval log, 3 samples)', async ({ library }) => {
  const file = corpusFile('inspect-ai', 'inspect_security-guide_gpt4o-mini.json');
  const name = path.basename(file);
  await library.goto();
  await library.dropFile(file, name);
  await expect(library.picker).toBeVisible();
  await expect(library.picker.getByTestId('conversation-option')).toHaveCount(3);
  await library.picker.getByTestId('import-all').click();
  await expect(library.rows).toHaveCount(3, { timeout: 30_000 });
  await expect(library.page.getByTestId('import-progress')).toHaveCount(0);
  for (const i of [0, 1, 2]) {
    const row = library.rows.filter({ hasText: `conversation ${i}` });
    expect(await library.rowTurns(row)).toBe(expectedTurns(file, i));
  }
  // The three share one stored original: each exports the whole file, byte for byte.
  const exported = await library.exportOriginal(library.rows.filter({ hasText: 'conversation 1' }));
  expect(exported.equals(fs.readFileSync(file))).toBe(true);
});
