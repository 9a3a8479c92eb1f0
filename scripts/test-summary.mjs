/**
 * The failures of a test run, one line each, for the closing summary of scripts/test-all.mjs:
 * CI keeps only the tail of the log, so the summary names what failed and why.
 */
import path from 'node:path';

/** The first line of a failure message, without colour codes, at most 300 characters. */
export function firstLine(message) {
  const line = String(message ?? '').replace(/\x1b\[[0-9;]*m/g, '').split('\n').find((l) => l.trim()) ?? '';
  return line.trim().slice(0, 300);
}

/** Every spec test of a Playwright JSON report whose status is `status`, with its spec and file. */
function specTests(suites, status) {
  const out = [];
  const walk = (s) => {
    for (const spec of s.specs ?? []) for (const t of spec.tests ?? []) if (t.status === status) out.push({ file: spec.file ?? s.file, spec, test: t });
    for (const c of s.suites ?? []) walk(c);
  };
  for (const s of suites) walk(s);
  return out;
}

/** "file › title" for every spec that failed, then passed on a retry (Playwright's "flaky"). */
export function flakySpecs(suites) {
  return specTests(suites, 'flaky').map(({ file, spec }) => `${file} › ${spec.title}`);
}

/** "file › title: message" for every spec whose outcome was unexpected, from Playwright's JSON report. */
export function failedSpecs(suites) {
  return specTests(suites, 'unexpected').map(({ file, spec, test }) => {
    const err = (test.results ?? []).map((r) => r.error?.message ?? r.errors?.[0]?.message).find(Boolean);
    return `${file} › ${spec.title}: ${firstLine(err)}`;
  });
}

/** "file › full name: message" for every failed test (and every file that did not load) of Vitest's JSON report. */
export function failedUnitTests(report, cwd = process.cwd()) {
  const out = [];
  for (const r of report.testResults ?? []) {
    const file = path.relative(cwd, r.name ?? '');
    if (r.status === 'failed' && (r.assertionResults ?? []).length === 0) out.push(`${file}: did not load: ${firstLine(r.message)}`);
    for (const a of r.assertionResults ?? []) if (a.status === 'failed') out.push(`${file} › ${a.fullName ?? a.title}: ${firstLine(a.failureMessages?.[0])}`);
  }
  return out;
}
