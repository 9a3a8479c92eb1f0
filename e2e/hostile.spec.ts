/**
 * Transcript text is untrusted (DESIGN.md, STYLE.md §13). A transcript whose texts, tool inputs and
 * tool results carry script, event-handler, javascript: link, SVG and iframe payloads is imported,
 * opened, fully expanded, hovered and clicked through: nothing may run, no element of the payload
 * may reach the DOM, and the payload must still be readable as text.
 */
import type { Page } from '@playwright/test';
import path from 'node:path';
import { expect, SCREENSHOTS, test } from './fixtures';

const PAYLOADS = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=1">',
  '[click](javascript:window.__pwned=1)',
  '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=1"><circle r="4"/></svg>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
];
const ALL = PAYLOADS.join('\n\n');
/** Long enough to be collapsed behind "show all" (components/messages/Collapsible.tsx). */
const LONG = Array.from({ length: 40 }, (_, i) => `line ${i}: ${PAYLOADS[i % PAYLOADS.length]}`).join('\n');

function claudeCodeJsonl(): string {
  const base = { sessionId: 'hostile-session', cwd: '/project', version: '1.0.0' };
  const lines: object[] = [];
  let parent: string | null = null;
  let n = 0;
  const add = (type: 'user' | 'assistant', message: object) => {
    const uuid = `hostile-${++n}`;
    lines.push({ ...base, type, parentUuid: parent, uuid, timestamp: `2025-12-24T10:00:${String(n).padStart(2, '0')}.000Z`, message });
    parent = uuid;
  };
  add('user', { role: 'user', content: `Please look at this:\n\n${ALL}` });
  add('assistant', {
    id: 'msg_hostile_1',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'text', text: `Here it is rendered as markdown:\n\n${ALL}` },
      { type: 'tool_use', id: 'toolu_hostile_1', name: 'Bash', input: { command: ALL, description: PAYLOADS[1] } },
    ],
  });
  add('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_hostile_1', content: LONG }] });
  add('assistant', {
    id: 'msg_hostile_2',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'tool_use', id: 'toolu_hostile_2', name: 'Write', input: { file_path: PAYLOADS[4], content: ALL } },
    ],
  });
  add('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_hostile_2', content: ALL, is_error: true }] });
  add('assistant', { id: 'msg_hostile_3', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: `Done. ${PAYLOADS[2]} ${PAYLOADS[0]}` }] });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

function openAiChatJson(): string {
  return JSON.stringify(
    {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: `System prompt ${PAYLOADS[3]}` },
        { role: 'user', content: `Please look at this:\n\n${ALL}` },
        {
          role: 'assistant',
          content: `Markdown:\n\n${ALL}`,
          tool_calls: [{ id: 'call_hostile_1', type: 'function', function: { name: 'run', arguments: JSON.stringify({ command: ALL, path: PAYLOADS[1] }) } }],
        },
        { role: 'tool', tool_call_id: 'call_hostile_1', content: LONG },
        { role: 'assistant', content: `Done. ${PAYLOADS[2]}` },
      ],
    },
    null,
    2,
  );
}

declare global {
  interface Window {
    __pwned?: number;
  }
}

/** Open every fold, press every "show all", hover every message and click every link in the list. */
async function expandHoverAndClick(page: Page): Promise<void> {
  const list = page.getByTestId('message-list');
  for (const summary of await list.locator('details > summary').all()) await summary.click();
  for (const more of await list.getByTestId('show-all').all()) await more.click();
  for (const message of await list.getByTestId('message').all()) await message.hover();
  for (const link of await list.locator('a').all()) await link.click({ modifiers: [] }).catch(() => {});
}

const CASES = [
  { label: 'Claude Code JSONL', name: 'hostile-session.jsonl', text: claudeCodeJsonl, format: 'Claude Code' },
  { label: 'OpenAI Chat JSON', name: 'hostile-chat.json', text: openAiChatJson, format: 'OpenAI Chat' },
];

for (const c of CASES) {
  test(`hostile content (${c.label}) renders as inert text`, async ({ library, inspector, page, context }) => {
    test.setTimeout(60_000);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss();
    });
    // A link opened in a new tab: note where it goes, then close it (loading a second app is slow).
    const popupUrls: string[] = [];
    context.on('page', (p) => {
      popupUrls.push(p.url());
      void p.close();
    });

    await library.goto();
    await library.importBuffer(c.name, c.text());
    const row = await library.waitForRow(c.name);
    await expect(row).toContainText(c.format);
    await library.open(row);
    await inspector.waitLoaded();

    const list = inspector.list;
    // The assistant text is markdown: its javascript: link must not survive as a javascript: URL.
    await expandHoverAndClick(page);
    await inspector.hoverTurn(0);
    await page.waitForTimeout(300);

    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    for (const url of popupUrls) expect(url).not.toMatch(/^javascript:/i);
    // No element of the payload exists in the message list, nor any handler attribute anywhere.
    await expect(list.locator('script, img, svg, iframe, object, embed')).toHaveCount(0);
    await expect(page.locator('[onerror], [onload], a[href^="javascript:" i], iframe[srcdoc]')).toHaveCount(0);
    // The payload is readable as text: in the user's message, the tool input and the tool result.
    await expect(list.getByTestId('message').filter({ hasText: 'Please look at this' })).toContainText(PAYLOADS[0]);
    for (const payload of PAYLOADS) await expect(list.getByText(payload, { exact: false }).first()).toBeVisible();
    await expect(list.getByTestId('tool-result').first()).toContainText(PAYLOADS[1]);
    await expect(list.getByTestId('tool-call').first()).toContainText(PAYLOADS[4]);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  });
}

test('inline images: a PNG shows as a thumbnail; an SVG with script and a remote image are listed, never drawn or fetched', async ({ library, inspector, page }) => {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const svg = Buffer.from(PAYLOADS[3]).toString('base64');
  const request = {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these pictures?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          { type: 'image', source: { type: 'base64', media_type: 'image/svg+xml', data: svg } },
          { type: 'image', source: { type: 'url', url: 'https://images.example.invalid/tracker.png' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'A single pixel, a vector drawing and a remote picture.' }] },
    ],
  };
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const remote: string[] = [];
  page.on('request', (r) => {
    if (!/^(https?:\/\/127\.0\.0\.1[:/]|data:|blob:)/.test(r.url())) remote.push(r.url());
  });

  await library.goto();
  await library.importBuffer('images-request.json', JSON.stringify(request, null, 2));
  const row = await library.waitForRow('images-request.json');
  await expect(row).toContainText('Anthropic');
  await library.open(row);
  await inspector.waitLoaded();
  const list = inspector.list;
  await expect(list.getByTestId('attachment')).toHaveCount(3);
  const thumb = list.getByTestId('attachment-thumbnail');
  await expect(thumb).toHaveCount(1);
  await expect(thumb).toHaveAttribute('src', `data:image/png;base64,${png}`);
  // Decoded and drawn: a 1×1 image.
  await expect.poll(() => thumb.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
  // Its size, read from the header at import, is what its tokens are computed from.
  await expect(list.getByTestId('attachment-size')).toHaveText('1×1');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-attachments.png') });
  await expect(list.getByTestId('attachment').filter({ hasText: 'image/svg+xml' })).toBeVisible();
  await expect(list.locator('svg, script, iframe, object, embed')).toHaveCount(0);
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(remote).toEqual([]);
});
