/**
 * Every transcript format, through the browser: one real corpus file per family is uploaded via
 * the library's file input, its row shows the family's format label, and the inspector shows the
 * timeline with the importer's turn count and token total, the source's own compactions (one
 * listed band per marker) and its recorded usage (one model call per usage record).
 *
 * The expectations are computed here, in the test process, by the same importer the worker runs
 * (lib/formats/import.ts importBytes, same conversation index) and the one definition of "tokens"
 * (lib/tokens/totals.ts transcriptTotals): the UI must agree with the library code, not with
 * numbers written into this file. Files were chosen to carry markers and usage where the family
 * records them (FORMATS.md): Claude Code compact_boundary, Codex `compacted`, Anthropic compaction
 * block, Gemini state_snapshot.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import type { Transcript } from '../lib/model/types';
import { transcriptTotals } from '../lib/tokens/totals';
import { corpusFile, expect, libraryOfWorker, onePagePerWorker, pageOfWorker, SCREENSHOTS, test as base, type WorkerPages } from './fixtures';
import { TranscriptTotals } from './pages/TranscriptTotals';

/**
 * One page per Playwright worker for this spec's tests (session 20): each test imports its own file
 * into the library the earlier tests of its worker filled, and opens it, in the app that is already
 * running. What a test asserts reads only its own file's row and inspector, so the earlier rows
 * change nothing it checks; a test run alone (`-g`) gets a fresh page. The saving is the app's start
 * per test (page load, hydration, the query lane's and the import lane's engine workers compiling
 * the engine; session 16's trace: about 2 s of CPU of a simple test's 4). A failed test still fails
 * alone: Playwright ends the worker after a failure, and the next test gets a new worker, so a new page.
 * (The fixture is e2e/fixtures.ts onePagePerWorker; the library goes back by the inspector's link.)
 */
const test = base.extend<object, { appPage: WorkerPages }>({ appPage: [onePagePerWorker, { scope: 'worker' }], page: pageOfWorker, library: libraryOfWorker });

interface FamilyCase {
  /** Screenshot name: reports/screenshots/formats-<shot>.png. */
  shot: string;
  family: string;
  name: string;
  /** The format id detection must pick, and the label the library row shows for it. */
  format: string;
  label: string;
  /** A container file (tau-bench, NeMo Gym, OpenHands output, Inspect .eval): the conversation picked in the dialog. */
  conversation?: number;
  /** What makes the file a good representative: asserted, so a corpus or importer change is noticed. */
  hasMarkers: boolean;
  hasUsage: boolean;
}

const CASES: FamilyCase[] = [
  { shot: 'claude-code', family: 'claude-code', name: 'slopometry_transcript_opus45_compact.jsonl', format: 'claude-code', label: 'Claude Code', hasMarkers: true, hasUsage: true },
  { shot: 'codex-cli', family: 'codex-cli', name: 'localpush_rollout-2026-02-23_sanitized_compacted.jsonl', format: 'codex-cli', label: 'OpenAI Codex CLI rollout', hasMarkers: true, hasUsage: true },
  { shot: 'openai-chat', family: 'openai-chat', name: 'tau-bench_gpt-4o-airline_historical_trajectories.json', format: 'openai-chat', label: 'OpenAI Chat', conversation: 3, hasMarkers: false, hasUsage: false },
  { shot: 'openai-responses', family: 'openai-responses', name: 'nemo-gym_conversational_tool_use_rollouts.jsonl', format: 'openai-responses', label: 'OpenAI Responses API', conversation: 2, hasMarkers: false, hasUsage: true },
  { shot: 'anthropic-messages', family: 'anthropic-messages', name: 'vercel-ai_anthropic-compaction.1.json', format: 'anthropic-messages', label: 'Anthropic Messages API', hasMarkers: true, hasUsage: true },
  { shot: 'gemini-api', family: 'gemini-api', name: 'gemini-cli_context-compress.responses', format: 'gemini-api', label: 'Gemini API (generateContent)', hasMarkers: true, hasUsage: true },
  { shot: 'gemini-cli', family: 'gemini-cli', name: 'vibecodingtracker_gemini_session.jsonl', format: 'gemini-cli', label: 'Gemini CLI session', hasMarkers: false, hasUsage: true },
  { shot: 'openhands', family: 'openhands', name: 'openhands_multi_swe_bench_output.jsonl', format: 'openhands', label: 'OpenHands events', conversation: 1, hasMarkers: false, hasUsage: true },
  { shot: 'swe-agent', family: 'swe-agent', name: 'swe-agent_marshmallow-1867_function_calling.traj', format: 'swe-agent', label: 'SWE-agent trajectory', hasMarkers: false, hasUsage: false },
  { shot: 'inspect-ai-eval', family: 'inspect-ai', name: 'inspect_popularity.eval', format: 'inspect-ai', label: 'Inspect AI eval log', conversation: 4, hasMarkers: false, hasUsage: true },
  { shot: 'inspect-ai-json', family: 'inspect-ai', name: 'inspect_browser_gpt4o-mini.json', format: 'inspect-ai', label: 'Inspect AI eval log', hasMarkers: false, hasUsage: true },
  { shot: 'mini-swe-agent', family: 'mini-swe-agent', name: 'mini-swe-agent_github_issue_test_messages.json', format: 'mini-swe-agent', label: 'mini-swe-agent trajectory', hasMarkers: false, hasUsage: false },
];

/** What the importer says about the file, in this process. */
function expectationsFor(file: string, conversation: number | undefined) {
  const { transcript, detection } = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)), conversation === undefined ? {} : { conversation });
  return {
    format: detection?.format.id,
    turns: transcript.turnCount,
    tokens: transcriptTotals(transcript).total,
    markers: transcript.markers.length,
    usage: transcript.usage.length,
    sideChainUsage: transcript.usage.filter((u) => transcript.messages[u.messageIndex]?.sidechain).length,
    modelCalls: mainChainCalls(transcript),
    /** Records that are one call's context size (aggregates such as a NeMo Gym rollout total are not). */
    contextSizes: transcript.usage.filter((u) => (u.calls ?? 1) === 1 && !transcript.messages[u.messageIndex]?.sidechain).length,
  };
}

/**
 * Model calls the panel counts: usage records of the main chain (a sub-agent's side chain is a
 * different model context; lib/engine/api.ts usageSummary), each worth the calls it aggregates
 * (UsageRecord.calls: a NeMo Gym rollout's total covers several).
 */
function mainChainCalls(t: Transcript): number {
  return t.usage.filter((u) => !t.messages[u.messageIndex]?.sidechain).reduce((n, u) => n + (u.calls ?? 1), 0);
}

const tokensText = (n: number) => new Intl.NumberFormat('en-US').format(Math.round(n));

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test.describe.parallel('every format: upload → library row → inspector timeline with markers and usage', () => {
  for (const c of CASES) {
    test(`${c.shot}: ${c.name}${c.conversation !== undefined ? ` (conversation ${c.conversation})` : ''}`, async ({ library, inspector, page }) => {
      const file = corpusFile(c.family, c.name);
      const expected = await test.step('expectations from the importer', () => {
        const e = expectationsFor(file, c.conversation);
        expect(e.format, 'detected format').toBe(c.format);
        expect(e.turns).toBeGreaterThanOrEqual(1);
        expect(e.markers > 0, 'representative file carries source compaction markers').toBe(c.hasMarkers);
        expect(e.usage > 0, 'representative file carries recorded usage').toBe(c.hasUsage);
        expect(e.sideChainUsage, 'no side-chain usage in this file').toBe(0);
        return e;
      });

      const row = await test.step('upload: library row with the format label', async () => {
        await library.goto();
        await library.importFile(file);
        if (c.conversation !== undefined) await library.chooseConversation(c.conversation);
        const r = await library.waitForRow(c.conversation !== undefined ? `${c.name} · conversation ${c.conversation}` : c.name);
        await expect(r).toContainText(c.label);
        expect(await library.rowTurns(r), 'turns in the row').toBe(expected.turns);
        await expect(r).toHaveAttribute('data-tokens', String(expected.tokens));
        return r;
      });

      await test.step('inspector: timeline canvas with the turns', async () => {
        await library.open(row);
        await inspector.waitLoaded();
        await inspector.useTurnAxis();
        await expect(page.getByTestId('timeline-canvas')).toBeVisible();
        expect(await inspector.turns(), 'turns on the timeline').toBe(expected.turns);
      });

      const totals = new TranscriptTotals(page);
      await test.step('side panel: tokens, source compactions, recorded usage', async () => {
        await totals.show();
        expect(await totals.tokens(), 'token total').toBe(expected.tokens);
        await expect(totals.tokenTotal).toHaveText(tokensText(expected.tokens));

        // The source's compactions: one listed band per marker, and the band layer named in the legend.
        await expect(totals.compactions, 'compactions in the source').toHaveCount(expected.markers);
        if (expected.markers > 0) await expect(totals.legend).toContainText('Source compaction');
        else await expect(totals.legend).not.toContainText('Source compaction');

        // Recorded usage: the model-call count, and the recorded-context line named in the legend.
        if (expected.usage > 0) {
          await expect(totals.usage).toBeVisible();
          expect(await totals.modelCalls(), 'model calls').toBe(expected.modelCalls);
          // The recorded-context line is drawn from per-call context sizes only.
          if (expected.contextSizes > 0) await expect(totals.legend).toContainText('Recorded context (usage)');
          else await expect(totals.legend).not.toContainText('Recorded context (usage)');
        } else {
          await expect(totals.usage).toHaveCount(0);
          await expect(totals.legend).not.toContainText('Recorded context (usage)');
        }
      });

      await page.screenshot({ path: path.join(SCREENSHOTS, `formats-${c.shot}.png`) });
    });
  }
});
