/**
 * Issue 10 "A protected tail that fits agents", in the inspector: on every Codex rollout of the
 * corpus, the Plan panel's Auto at 50 % with its defaults (keep last 1 turn) reaches the target —
 * a Codex run is one or two turns of dozens of calls, and the protected turn narrows to its last
 * model calls — and Apply gives a version at or under it. The Report says what the tail became.
 * Where the floor (system + every user message + the last model call) is above the target, the
 * Report names the floor instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, libraryOfWorker, onePagePerWorker, pageOfWorker, SCREENSHOTS, test as base, type WorkerPages } from './fixtures';
import { cliInspect } from './pages/cli';
import { Workbench } from './pages/Workbench';
import { importBytes } from '../lib/formats/import';
import { contextFloor } from '../lib/compaction/calls';
import { startingContext } from '../lib/compaction/project';

/** One page per Playwright worker and spec file (e2e/fixtures.ts onePagePerWorker): each test imports and works on its own file. */
const test = base.extend<object, { appPage: WorkerPages }>({ appPage: [onePagePerWorker, { scope: 'worker' }], page: pageOfWorker, library: libraryOfWorker });

/** The floor of the model's view (what the Plan panel's 50 % is half of). */
function floorOf(file: string): number {
  const t = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  return contextFloor(t, startingContext(t, 'model-view').messages).total;
}

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

const ROLLOUTS = fs.readdirSync(path.dirname(corpusFile('codex-cli', 'x'))).filter((f) => f.endsWith('.jsonl')).sort();

test('there are Codex rollouts to try', () => expect(ROLLOUTS.length).toBeGreaterThanOrEqual(4));

for (const name of ROLLOUTS)
  test(`Codex rollout ${name}: Auto 50 % with the default keep-last reaches the target`, async ({ library, inspector, page }) => {
    test.setTimeout(150_000);
    const file = corpusFile('codex-cli', name);
    const expected = cliInspect(file);
    await library.openInInspector(file, inspector);
    const wb = new Workbench(page);
    const target = await wb.autoHalf();
    expect(target).toBeGreaterThan(0);
    // The defaults, untouched: keep last 1 turn, and the last 3 model calls when that turn is too big.
    await expect(page.getByTestId('keep-last')).toHaveValue('1');
    await expect(page.getByTestId('keep-last-calls')).toHaveValue('3');
    const floor = floorOf(file);
    const report = page.getByRole('tabpanel');
    if (floor > target) {
      await wb.tab('Report');
      await expect(report).toContainText(`the floor (system`, { timeout: 60_000 });
      await expect(report).toContainText(`is ${floor.toLocaleString('en-US')} tokens, above the target`);
      await page.screenshot({ path: path.join(SCREENSHOTS, `agent-tail-codex-${name.replace(/\.jsonl$/, '')}.png`) });
      return;
    }
    await expect.poll(async () => (await wb.previewTokens()).after, { timeout: 60_000 }).toBeLessThanOrEqual(target);
    await wb.tab('Report');
    await expect(report).not.toContainText(/still [\d,]+ tokens > target/);
    if (expected.turns <= 2) await expect(report).toContainText(/protected the last \d model call\(s\)/);
    await page.screenshot({ path: path.join(SCREENSHOTS, `agent-tail-codex-${name.replace(/\.jsonl$/, '')}.png`) });
    await wb.tab('Plan');
    await wb.apply();
    await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 60_000 }).toBeLessThanOrEqual(target);
  });
