/**
 * Does a worker's answer (its own port) overtake the progress reports it posted before on a
 * transferred MessagePort (a Comlink proxy's)? Session 19's census hang. In Debian's Chromium:
 *   node scripts/port-order.mjs RUNS N GAP_MS FRAME_BUSY_MS
 * N reports (GAP_MS apart, 0: back to back with a little work each), then the answer; on the page,
 * the old CensusSection's once-a-frame redraw (FRAME_BUSY_MS of work per frame). Prints how many
 * runs saw the answer before the last report, and how many ended with the old section's state back
 * at 'running' after the answer (the hang).
 */
import { chromium } from 'playwright';

const [runs = 30, n = 1000, gap = 0, busy = 0] = process.argv.slice(2).map(Number);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--disable-gpu', '--no-sandbox'] });
const page = await browser.newPage();
await page.setContent('<html><body>x</body></html>');
const out = await page.evaluate(
  async ([runs, n, gap, busy]) => {
    const src = `
      self.onmessage = async (e) => {
        const { port, n, gap } = e.data;
        for (let i = 1; i <= n; i++) {
          if (gap) await new Promise((r) => setTimeout(r, gap));
          else { let x = 0; for (let k = 0; k < 2000; k++) x += k; }
          port.postMessage({ done: i });
        }
        self.postMessage({ result: true });
      };`;
    const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    let overtaken = 0;
    let late = 0;
    let hung = 0;
    for (let r = 0; r < runs; r++) {
      const w = new Worker(url);
      const { port1, port2 } = new MessageChannel();
      let last = 0;
      let answered = false;
      let frame = 0;
      let state = 'running';
      port1.onmessage = (e) => {
        last = e.data.done;
        if (answered) late++;
        if (frame) return;
        frame = requestAnimationFrame(() => {
          frame = 0;
          state = 'running';
          const t = performance.now();
          while (performance.now() - t < busy);
        });
      };
      const done = new Promise((res) => {
        w.onmessage = () => {
          answered = true;
          cancelAnimationFrame(frame);
          state = 'done';
          res(last);
        };
      });
      w.postMessage({ port: port2, n, gap }, [port2]);
      const seen = await done;
      await new Promise((r) => setTimeout(r, 100));
      if (seen < n) overtaken++;
      if (state !== 'done') hung++;
      w.terminate();
    }
    return { runs, n, gap, busy, overtaken, lateReports: late, hung };
  },
  [runs, n, gap, busy],
);
console.log(JSON.stringify(out));
await browser.close();
