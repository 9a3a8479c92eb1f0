import fs from 'node:fs';
import { importBytes } from '../lib/formats/import';
import { simulate } from '../lib/simulate/calls';
import { REPLAY_POLICIES } from '../lib/simulate/policies/replay';
const ids = process.env.POLICIES?.split(',');
for (const f of process.argv.slice(2)) {
  const t = importBytes(f, new Uint8Array(fs.readFileSync(f))).transcript;
  const t0 = performance.now();
  const s = simulate(t, REPLAY_POLICIES.filter((p) => !ids || ids.includes(p.id)));
  const ms = performance.now() - t0;
  console.log(`\n${f.split('/').pop()} model ${s.model.id} win ${s.model.contextWindow} cache ${s.cache.provider} f ${s.calibration.factor.toFixed(2)} ovh ${s.calibration.overhead} recorded $${s.recorded?.usd.toFixed(4)} (${ms.toFixed(0)} ms)`);
  for (const r of s.results) {
    const x = r.totals;
    const err = s.recorded && r.policy === 'recorded' ? ` err ${(((x.usd - s.recorded.usd) / s.recorded.usd) * 100).toFixed(1)}%` : '';
    console.log(`${r.policy.padEnd(26)} $${x.usd.toFixed(4)} fires ${x.compactions} peak ${x.peakContext} over ${x.callsOverWindow} hit ${(x.cacheHitRate * 100).toFixed(0)}% breaks ${x.cacheBreaks} lostIds ${x.identifiersLost} lostUser ${x.userMessagesLost}${err}`);
  }
}
