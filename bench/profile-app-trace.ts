/**
 * Where an app action's time goes (issue 31), on the built app (out/, served by scripts/serve.mjs):
 * open a session through the file input, preview Auto 50 % on 30–60 % of the timeline as bench/app.ts
 * does, then trace the phases asked for (open, apply, export) with the V8 CPU profiler on every
 * thread of the page's renderer (the page and its engine workers). Prints, per phase, the page's
 * state changes (URL version, the Plan panel's data-preview/data-range, worker busy, Download
 * disabled, note shown) with their ms, each thread's task CPU, and each profiled thread's top
 * functions by self and inclusive time (names are the minified build's). KEEP=1 keeps the trace.
 * EXTRA=categories adds trace categories (e.g. disabled-by-default-v8.compile,disabled-by-default-v8.gc:
 * V8's background compiles and GC); JSFLAGS=flags launches Chromium with --js-flags (e.g. --trace-opt
 * --trace-deopt, printed on the browser's stdout with DEBUG=pw:browser).
 * Run it under the shared lock:
 *   flock -w 4000 /tmp/cs-heavy.lock npx tsx bench/profile-app-trace.ts FILE TURNS [open,apply,export]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';

const root = process.cwd();
const file = process.argv[2];
const turns = Number(process.argv[3]);
const phases = (process.argv[4] ?? 'apply,export').split(',');

async function serve(): Promise<{ url: string; kill: () => void }> {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'serve.mjs'), '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /at (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
  });
  return { url, kill: () => child.kill() };
}

// POLL=ms: poll the page every ms instead of every frame (a frame loop keeps the compositor busy: it is the bench's, not the user's).
const polling: 'raf' | number = process.env.POLL ? Number(process.env.POLL) : 'raf';
const waitIn = (page: Page, fn: (a: any) => boolean, arg: any = null) => page.waitForFunction(fn as any, arg, { polling, timeout: 300_000 });
const idle = (page: Page) => waitIn(page, () => document.querySelector('[data-testid=worker-activity]')?.getAttribute('data-busy') !== 'yes');
const settled = (page: Page, want: string | null) =>
  waitIn(
    page,
    (w: string | null) => {
      const t = document.querySelector('[data-testid=selection-totals]');
      if (t?.getAttribute('data-preview') !== 'settled') return false;
      const shown = t.getAttribute('data-range') ?? '';
      return w !== null ? shown === w : shown !== '' && shown === (document.querySelector('[data-testid=timeline]')?.getAttribute('data-selection') ?? '');
    },
    want,
  );

function analyze(name: string, events: any[]) {
  const names = new Map<string, string>();
  for (const e of events) if (e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  // Task CPU per thread
  const cpu = new Map<string, { n: number; cpu: number; wall: number }>();
  for (const e of events)
    if (e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask')) {
      const k = `${e.pid}:${e.tid}`;
      const c = cpu.get(k) ?? { n: 0, cpu: 0, wall: 0 };
      c.n++;
      c.cpu += (e.tdur ?? 0) / 1000;
      c.wall += (e.dur ?? 0) / 1000;
      cpu.set(k, c);
    }
  console.log(`\n=== ${name}: tasks per thread (outer+nested double-counted)`);
  for (const [k, c] of [...cpu].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 8)) console.log(`  ${names.get(k) ?? k}  n=${c.n} cpu=${c.cpu.toFixed(0)} wall=${c.wall.toFixed(0)}`);
  // Phase measures (performance.measure in the page and the engine worker: blink.user_timing)
  const t0 = Math.min(...events.filter((e) => e.ph === 'X' || e.ph === 'b').map((e) => e.ts));
  for (const e of events)
    if (e.cat?.includes('blink.user_timing') && (e.ph === 'b' || e.ph === 'e' || e.ph === 'X' || e.ph === 'R' || e.ph === 'I' || e.ph === 'n'))
      console.log(`  mark ${names.get(`${e.pid}:${e.tid}`) ?? e.tid} ${e.ph} ${((e.ts - t0) / 1000).toFixed(0)} ${e.name} ${e.dur ? (e.dur / 1000).toFixed(0) : ''}`);
  // CPU profile per thread
  const profiles = new Map<string, { nodes: Map<number, any>; samples: number[]; deltas: number[]; thread: string }>();
  for (const e of events) {
    if (e.name === 'Profile') profiles.set(e.id, { nodes: new Map(), samples: [], deltas: [], thread: names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}` });
    if (e.name === 'ProfileChunk') {
      const p = profiles.get(e.id);
      if (!p) continue;
      const d = e.args.data;
      for (const n of d.cpuProfile?.nodes ?? []) p.nodes.set(n.id, n);
      p.samples.push(...(d.cpuProfile?.samples ?? []));
      p.deltas.push(...(d.timeDeltas ?? []));
    }
  }
  longTasks(events, names, profiles);
  for (const [, p] of profiles) {
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    let sum = 0;
    for (let i = 0; i < p.samples.length; i++) {
      const dt = (p.deltas[i + 1] ?? 0) / 1000;
      const n = p.nodes.get(p.samples[i]);
      if (!n) continue;
      const cf = n.callFrame;
      const label = `${cf.functionName || '(anon)'} ${cf.url?.split('/').pop() ?? ''}:${cf.lineNumber}`;
      if (cf.functionName === '(idle)' || cf.functionName === '(program)') continue;
      sum += dt;
      self.set(label, (self.get(label) ?? 0) + dt);
      // inclusive: walk parents
      const seen = new Set<string>();
      let cur: any = n;
      while (cur) {
        const c2 = cur.callFrame;
        const l2 = `${c2.functionName || '(anon)'} ${c2.url?.split('/').pop() ?? ''}:${c2.lineNumber}`;
        if (!seen.has(l2)) {
          seen.add(l2);
          total.set(l2, (total.get(l2) ?? 0) + dt);
        }
        cur = cur.parent !== undefined ? p.nodes.get(cur.parent) : undefined;
      }
    }
    if (sum < 20) continue;
    console.log(`  --- profile ${p.thread}: ${sum.toFixed(0)} ms sampled`);
    console.log('   self:');
    for (const [l, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`     ${ms.toFixed(0).padStart(6)}  ${l}`);
    console.log('   inclusive:');
    for (const [l, ms] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`     ${ms.toFixed(0).padStart(6)}  ${l}`);
  }
}

/**
 * Each main-thread task over LONG ms CPU (default 30): its CPU, the trace events nested in it
 * (by duration) and the JS samples of the page's profile that fall inside it, by self and inclusive
 * time. Samples are placed on the trace clock from the profile's startTime plus its deltas.
 */
function longTasks(events: any[], names: Map<string, string>, profiles: Map<string, { nodes: Map<number, any>; samples: number[]; deltas: number[]; thread: string }>) {
  const limit = Number(process.env.LONG ?? 30);
  const main = [...names].find(([, n]) => n === 'CrRendererMain')?.[0];
  if (!main) return;
  const onMain = (e: any) => `${e.pid}:${e.tid}` === main;
  const tasks = events.filter((e) => onMain(e) && e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && (e.tdur ?? 0) / 1000 >= limit);
  if (!tasks.length) return console.log(`  no main-thread task >= ${limit} ms CPU`);
  const starts = new Map<string, number>();
  for (const e of events) if (e.name === 'Profile' && onMain(e)) starts.set(e.id, e.args.data.startTime);
  const p = [...profiles].find(([id]) => starts.has(id));
  const samples: Array<{ ts: number; node: any }> = [];
  if (p) {
    let ts = starts.get(p[0])!;
    for (let i = 0; i < p[1].samples.length; i++) {
      ts += p[1].deltas[i] ?? 0;
      samples.push({ ts, node: p[1].nodes.get(p[1].samples[i]) });
    }
  }
  const t0 = Math.min(...events.filter((e) => e.ph === 'X').map((e) => e.ts));
  const label = (n: any) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url?.split('/').pop() ?? ''}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`;
  for (const t of tasks) {
    console.log(`  LONG TASK at ${((t.ts - t0) / 1000).toFixed(0)} ms: cpu ${(t.tdur / 1000).toFixed(1)} wall ${(t.dur / 1000).toFixed(1)}`);
    const inside = events.filter((e) => onMain(e) && e !== t && e.ph === 'X' && e.ts >= t.ts && e.ts < t.ts + t.dur && (e.dur ?? 0) >= 2000);
    for (const e of inside.slice(0, 40)) console.log(`     ev ${((e.ts - t.ts) / 1000).toFixed(1)} +${(e.dur / 1000).toFixed(1)} (cpu ${((e.tdur ?? 0) / 1000).toFixed(1)}) ${e.name} ${e.args?.data?.functionName ?? e.args?.data?.url?.split('/').pop() ?? e.args?.data?.type ?? ''}`);
    const self = new Map<string, number>();
    const incl = new Map<string, number>();
    let prev = t.ts;
    for (const s of samples) {
      if (s.ts < t.ts || s.ts > t.ts + t.dur) continue;
      const dt = (s.ts - prev) / 1000;
      prev = s.ts;
      if (!s.node) continue;
      self.set(label(s.node), (self.get(label(s.node)) ?? 0) + dt);
      const seen = new Set<string>();
      for (let n = s.node; n; n = n.parent !== undefined ? p![1].nodes.get(n.parent) : undefined) {
        const l = label(n);
        if (seen.has(l)) continue;
        seen.add(l);
        incl.set(l, (incl.get(l) ?? 0) + dt);
      }
    }
    console.log('     self:');
    for (const [l, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`       ${ms.toFixed(1).padStart(6)}  ${l}`);
    console.log('     inclusive:');
    for (const [l, ms] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`       ${ms.toFixed(1).padStart(6)}  ${l}`);
  }
}

async function traced(page: Page, name: string, act: () => Promise<void>) {
  const cdp = await page.context().newCDPSession(page);
  const events: any[] = [];
  cdp.on('Tracing.dataCollected', (e: any) => events.push(...e.value));
  await cdp.send('Tracing.start', { categories: `devtools.timeline,disabled-by-default-devtools.timeline,blink.user_timing${process.env.NOPROFILE ? '' : ',disabled-by-default-v8.cpu_profiler'},v8.execute${process.env.EXTRA ? ',' + process.env.EXTRA : ''}`, transferMode: 'ReportEvents' });
  await page.evaluate(`(() => {
    const log = (window.__log = []);
    const t0 = performance.now();
    let last = '';
    const tick = () => {
      const t = document.querySelector('[data-testid=selection-totals]');
      const b = document.querySelector('[data-testid=export-download]');
      const s = [location.search.includes('v=') ? 'v' : '-', t && t.getAttribute('data-preview'), t && t.getAttribute('data-range'), document.querySelector('[data-testid=worker-activity]') && document.querySelector('[data-testid=worker-activity]').getAttribute('data-busy'), b && b.disabled, !!document.querySelector('[data-testid=history-left-out]')].join(' ');
      if (s !== last) log.push([(performance.now() - t0).toFixed(0), s]);
      last = s;
      if (!window.__stop) (${polling === 'raf'} ? requestAnimationFrame(tick) : setTimeout(tick, ${polling === 'raf' ? 0 : polling}));
    };
    tick();
  })()`);
  const t0 = Date.now();
  await act();
  const ms = Date.now() - t0;
  const log = (await page.evaluate('(window.__stop = true, window.__log)')) as any[];
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.end');
  await done;
  console.log(`\n##### ${name}: ${ms} ms wall`);
  for (const [t, s] of log) console.log(`   ${t} ${s}`);
  analyze(name, events);
  if (process.env.KEEP) fs.writeFileSync(`/tmp/prof-${name}.json`, JSON.stringify(events));
}

(async () => {
  const { url, kill } = await serve();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', ...(process.env.JSFLAGS ? [`--js-flags=${process.env.JSFLAGS}`] : [])] });
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 }, acceptDownloads: true, ...(process.env.REDUCED && { reducedMotion: 'reduce' as const }) });
  const page = await context.newPage();
  page.on('console', (m) => console.log('  [page]', m.text()));
  try {
    await page.goto('/');
    await page.getByTestId('drop-zone').waitFor();
    const base = path.basename(file);
    const doOpen = async () => {
      await page.getByTestId('file-input').setInputFiles(file);
      await waitIn(page, (n: string) => [...document.querySelectorAll('[data-testid=transcript-row]')].some((r) => r.textContent?.includes(n)) && !document.querySelector('[data-testid=import-progress]'), base);
      await page.getByTestId('transcript-row').filter({ hasText: base }).getByTestId('open-transcript').click();
      await waitIn(page, (n: number) => Number(document.querySelector('[data-testid=timeline]')?.getAttribute('data-turns') ?? 0) >= n && !!document.querySelector('[data-testid=message]'), turns);
    };
    if (phases.includes('open')) await traced(page, 'open', doOpen);
    else await doOpen();
    await idle(page);
    await page.getByRole('tab', { name: 'Plan', exact: true }).click();
    await page.getByRole('radio', { name: 'Auto' }).click();
    await page.getByRole('button', { name: '50 %' }).click();
    await settled(page, '');
    await idle(page);
    const canvas = (await page.getByTestId('timeline-canvas').boundingBox())!;
    const plotX = (f: number) => canvas.x + 52 + f * (canvas.width - 52 - 14);
    const y = canvas.y + canvas.height / 2;
    await page.mouse.move(plotX(0.3), y);
    await page.mouse.down();
    await page.mouse.move(plotX(0.6), y, { steps: 12 });
    if (phases.includes('preview')) await traced(page, 'preview', async () => {
      await page.mouse.up();
      await settled(page, null);
    });
    else await page.mouse.up();
    await settled(page, null);
    await idle(page);
    if (phases.includes('apply'))
      await traced(page, 'apply', async () => {
        await page.getByRole('button', { name: 'Apply', exact: true }).click();
        await waitIn(page, () => new URL(location.href).searchParams.has('v'));
        await settled(page, '');
      });
    await idle(page);
    if (phases.includes('export'))
      await traced(page, 'export', async () => {
        await page.getByTestId('export').click();
        await waitIn(page, () => !!document.querySelector('[data-testid=export-download]') && !(document.querySelector('[data-testid=export-download]') as HTMLButtonElement).disabled);
        const dl = page.waitForEvent('download', { predicate: (d) => !d.suggestedFilename().endsWith('.audit.json') });
        await page.getByTestId('export-download').click();
        await dl;
      });
    if (phases.includes('replay') || phases.includes('overlay')) {
      // As bench/app.ts does: the export dialog closed, the worker idle, then the Replay link.
      if (phases.includes('export')) await page.keyboard.press('Escape');
      await idle(page);
      const inspectorUrl = page.url();
      if (phases.includes('replay'))
        await traced(page, 'replay', async () => {
          await page.getByTestId('open-replay').click();
          await waitIn(page, () => document.querySelectorAll('[data-testid=replay-row]').length >= 18);
        });
      if (phases.includes('overlay')) {
        await page.goto(inspectorUrl);
        await waitIn(page, (n: number) => Number(document.querySelector('[data-testid=timeline]')?.getAttribute('data-turns') ?? 0) >= n, turns);
        await idle(page);
        await page.getByTestId('policy-menu').locator('summary').click();
        await traced(page, 'overlay', async () => {
          for (const pid of ['contextscope-auto', 'claude-code', 'none']) await page.getByTestId(`policy-toggle-${pid}`).check();
          await waitIn(page, () => document.querySelectorAll('[data-testid=policy-chip]').length >= 3 && (document.querySelector('[data-testid=timeline]')?.getAttribute('data-policies') ?? '').split(',').filter(Boolean).length >= 3);
        });
      }
    }
  } finally {
    await browser.close();
    kill();
  }
})();
