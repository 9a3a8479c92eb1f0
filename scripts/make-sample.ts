/**
 * Generates public/sample/contextscope-demo.jsonl: the "Open a sample" transcript.
 *
 * A Claude Code session written by this project (never a corpus file): a coding agent fixes a
 * cent-rounding bug in a small TypeScript invoicing library over ~40 turns. It exercises what the
 * inspector shows: thinking blocks with signatures, Read / Grep / Bash / Edit tool_use +
 * tool_result pairs (large file reads, a failing test run, the same file read twice), one API
 * response split over several lines sharing a message.id (usage repeated, output_tokens growing),
 * usage that grows call by call (input / cache read / cache write / output), and a manual
 * /compact: a compact_boundary line + an isCompactSummary user line.
 *
 * Deterministic: a seeded PRNG and a fixed clock, so re-running writes the same bytes. The output
 * is committed. Run: `npx tsx scripts/make-sample.ts` (add `--check` to fail if it is stale).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// ── Deterministic helpers ─────────────────────────────────────────────────────────────────────

let seed = 0x5eed1234;
function rand(): number {
  // mulberry32
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const b62 = (n: number) => Array.from({ length: n }, () => B62[int(0, 61)]).join('');
const B64 = B62 + '+/';
const b64 = (n: number) => Array.from({ length: n }, () => B64[int(0, 63)]).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[int(0, 3)]}${hex(3)}-${hex(12)}`;

let clock = Date.parse('2026-03-02T09:14:05.000Z');
function tick(minMs: number, maxMs: number): string {
  clock += int(minMs, maxMs);
  return new Date(clock).toISOString();
}

/** chars/4, what the app estimates for Claude models: keeps recorded usage close to the estimate. */
const tokensOf = (s: string) => Math.ceil(s.length / 4);

// ── The project being fixed ───────────────────────────────────────────────────────────────────

const CWD = '/home/dana/src/ledger-lite';
const SESSION = uuid();
const MODEL = 'claude-sonnet-4-5-20250929';
const VERSION = '2.0.65';
const BRANCH = 'fix/split-rounding';

const REGIONS = ['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK'];
const CATEGORIES = ['standard', 'reduced', 'super-reduced', 'zero', 'books', 'food', 'medicine', 'transport', 'hotel', 'restaurant'];

function moneyTs(fixed: boolean): string {
  const split = fixed
    ? [
        'export function splitPayments(total: Money, parts: number): Money[] {',
        "  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`parts must be a positive integer, got ${parts}`);",
        '  // Work in integer cents: floating-point division loses the remainder cent (issue #142).',
        '  const cents = toCents(total);',
        '  const base = Math.trunc(cents / parts);',
        '  let remainder = cents - base * parts;',
        '  const out: Money[] = [];',
        '  for (let i = 0; i < parts; i++) {',
        '    // The first `remainder` parts carry one extra cent, so the parts always sum to the total.',
        '    const extra = remainder > 0 ? Math.sign(cents) : 0;',
        '    if (remainder > 0) remainder--;',
        '    out.push(fromCents(base + extra, total.currency));',
        '  }',
        '  return out;',
        '}',
      ]
    : [
        'export function splitPayments(total: Money, parts: number): Money[] {',
        "  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`parts must be a positive integer, got ${parts}`);",
        '  const each = round2(total.amount / parts);',
        '  return Array.from({ length: parts }, () => ({ amount: each, currency: total.currency }));',
        '}',
      ];
  return [
    "import { CurrencyCode, CURRENCY_DIGITS } from './currency';",
    '',
    'export interface Money {',
    '  amount: number;',
    '  currency: CurrencyCode;',
    '}',
    '',
    '/** Round half away from zero to 2 decimals (accounting rounding, not banker\'s). */',
    'export function round2(x: number): number {',
    '  const s = Math.sign(x);',
    '  return (s * Math.round(Math.abs(x) * 100 + Number.EPSILON)) / 100;',
    '}',
    '',
    'export function toCents(m: Money): number {',
    '  const digits = CURRENCY_DIGITS[m.currency] ?? 2;',
    '  return Math.round(m.amount * 10 ** digits);',
    '}',
    '',
    'export function fromCents(cents: number, currency: CurrencyCode): Money {',
    '  const digits = CURRENCY_DIGITS[currency] ?? 2;',
    '  return { amount: cents / 10 ** digits, currency };',
    '}',
    '',
    'export function add(a: Money, b: Money): Money {',
    '  assertSameCurrency(a, b);',
    '  return fromCents(toCents(a) + toCents(b), a.currency);',
    '}',
    '',
    'export function subtract(a: Money, b: Money): Money {',
    '  assertSameCurrency(a, b);',
    '  return fromCents(toCents(a) - toCents(b), a.currency);',
    '}',
    '',
    'export function multiply(a: Money, factor: number): Money {',
    '  return { amount: round2(a.amount * factor), currency: a.currency };',
    '}',
    '',
    ...split,
    '',
    'export function sum(items: Money[], currency: CurrencyCode): Money {',
    '  return items.reduce((acc, m) => add(acc, m), { amount: 0, currency });',
    '}',
    '',
    'export function assertSameCurrency(a: Money, b: Money): void {',
    '  if (a.currency !== b.currency) {',
    '    throw new TypeError(`currency mismatch: ${a.currency} vs ${b.currency}`);',
    '  }',
    '}',
    '',
    'export function format(m: Money, locale = \'en-US\'): string {',
    '  return new Intl.NumberFormat(locale, { style: \'currency\', currency: m.currency }).format(m.amount);',
    '}',
    '',
  ].join('\n');
}

function invoiceTs(): string {
  const lines: string[] = [
    "import { Money, add, multiply, round2, splitPayments, sum } from './money';",
    "import { CurrencyCode } from './currency';",
    '',
    '/** VAT rates by region and category, in percent. Source: the 2025 EU VAT rates table. */',
    'export const TAX_RATES: Record<string, Record<string, number>> = {',
  ];
  for (const r of REGIONS) {
    lines.push(`  ${r}: {`);
    for (const c of CATEGORIES) lines.push(`    '${c}': ${c === 'zero' ? 0 : c === 'standard' ? int(17, 27) : int(3, 14)},`);
    lines.push('  },');
  }
  lines.push('};', '');
  lines.push(
    'export interface LineItem {',
    '  sku: string;',
    '  description: string;',
    '  quantity: number;',
    '  unitPrice: Money;',
    '  category: string;',
    '  discountPercent?: number;',
    '}',
    '',
    'export interface Invoice {',
    '  id: string;',
    '  customerId: string;',
    '  region: string;',
    '  currency: CurrencyCode;',
    '  items: LineItem[];',
    '  issuedAt: string;',
    '  dueDays: number;',
    '  installments?: number;',
    '}',
    '',
    'export interface InvoiceTotals {',
    '  net: Money;',
    '  tax: Money;',
    '  gross: Money;',
    '  byCategory: Record<string, Money>;',
    '  schedule: Money[];',
    '}',
    '',
    'export function taxRate(region: string, category: string): number {',
    '  const table = TAX_RATES[region];',
    '  if (!table) throw new RangeError(`unknown region ${region}`);',
    "  return table[category] ?? table['standard'];",
    '}',
    '',
    'export function lineNet(item: LineItem): Money {',
    '  const gross = multiply(item.unitPrice, item.quantity);',
    '  if (!item.discountPercent) return gross;',
    '  return multiply(gross, 1 - item.discountPercent / 100);',
    '}',
    '',
    'export function lineTax(item: LineItem, region: string): Money {',
    '  return multiply(lineNet(item), taxRate(region, item.category) / 100);',
    '}',
    '',
    'export function computeTotals(invoice: Invoice): InvoiceTotals {',
    '  const nets = invoice.items.map(lineNet);',
    '  const taxes = invoice.items.map((i) => lineTax(i, invoice.region));',
    '  const net = sum(nets, invoice.currency);',
    '  const tax = sum(taxes, invoice.currency);',
    '  const gross = add(net, tax);',
    '  const byCategory: Record<string, Money> = {};',
    '  invoice.items.forEach((item, i) => {',
    '    const prev = byCategory[item.category] ?? { amount: 0, currency: invoice.currency };',
    '    byCategory[item.category] = add(prev, nets[i]);',
    '  });',
    '  const schedule = splitPayments(gross, invoice.installments ?? 1);',
    '  return { net, tax, gross, byCategory, schedule };',
    '}',
    '',
  );
  for (const name of ['Draft', 'Issued', 'Paid', 'Overdue', 'Cancelled', 'Refunded']) {
    lines.push(
      `export function is${name}(invoice: Invoice & { status?: string }): boolean {`,
      `  return invoice.status === '${name.toLowerCase()}';`,
      '}',
      '',
    );
  }
  lines.push(
    'export function dueDate(invoice: Invoice): Date {',
    '  const d = new Date(invoice.issuedAt);',
    '  d.setUTCDate(d.getUTCDate() + invoice.dueDays);',
    '  return d;',
    '}',
    '',
    'export function validateInvoice(invoice: Invoice): string[] {',
    '  const problems: string[] = [];',
    "  if (!invoice.id) problems.push('missing id');",
    "  if (invoice.items.length === 0) problems.push('no line items');",
    '  for (const [i, item] of invoice.items.entries()) {',
    '    if (item.quantity <= 0) problems.push(`item ${i}: quantity must be positive`);',
    '    if (item.unitPrice.currency !== invoice.currency) problems.push(`item ${i}: currency ${item.unitPrice.currency} != ${invoice.currency}`);',
    '    if (item.discountPercent !== undefined && (item.discountPercent < 0 || item.discountPercent > 100)) {',
    '      problems.push(`item ${i}: discount out of range`);',
    '    }',
    '  }',
    '  if (invoice.installments !== undefined && invoice.installments < 1) problems.push(\'installments must be >= 1\');',
    '  return problems;',
    '}',
    '',
    'export function roundTotalsForDisplay(t: InvoiceTotals): InvoiceTotals {',
    '  const r = (m: Money): Money => ({ ...m, amount: round2(m.amount) });',
    '  return { ...t, net: r(t.net), tax: r(t.tax), gross: r(t.gross), schedule: t.schedule.map(r) };',
    '}',
    '',
  );
  return lines.join('\n');
}

function moneyTestTs(withNewCases: boolean): string {
  const lines = [
    "import { describe, expect, it } from 'vitest';",
    "import { add, fromCents, multiply, round2, splitPayments, sum, toCents } from '../src/money';",
    '',
    "const eur = (amount: number) => ({ amount, currency: 'EUR' as const });",
    '',
    "describe('round2', () => {",
    "  it('rounds half away from zero', () => {",
    '    expect(round2(1.005)).toBe(1.01);',
    '    expect(round2(-1.005)).toBe(-1.01);',
    '    expect(round2(2.675)).toBe(2.68);',
    '  });',
    '});',
    '',
    "describe('cents', () => {",
    "  it('round-trips', () => {",
    '    expect(toCents(eur(19.99))).toBe(1999);',
    "    expect(fromCents(1999, 'EUR')).toEqual(eur(19.99));",
    '  });',
    "  it('adds without float drift', () => {",
    '    expect(add(eur(0.1), eur(0.2))).toEqual(eur(0.3));',
    '    expect(sum([eur(0.1), eur(0.1), eur(0.1)], \'EUR\')).toEqual(eur(0.3));',
    '  });',
    '});',
    '',
    "describe('splitPayments', () => {",
    "  it('splits evenly when it can', () => {",
    '    expect(splitPayments(eur(90), 3)).toEqual([eur(30), eur(30), eur(30)]);',
    '  });',
    "  it('splits 100.00 into 3 payments that sum to the total', () => {",
    '    const parts = splitPayments(eur(100), 3);',
    '    expect(parts).toEqual([eur(33.34), eur(33.33), eur(33.33)]);',
    "    expect(sum(parts, 'EUR')).toEqual(eur(100));",
    '  });',
    "  it('rejects zero parts', () => {",
    '    expect(() => splitPayments(eur(10), 0)).toThrow(RangeError);',
    '  });',
  ];
  if (withNewCases)
    lines.push(
      "  it('keeps the sign of refunds', () => {",
      '    expect(splitPayments(eur(-10), 3)).toEqual([eur(-3.34), eur(-3.33), eur(-3.33)]);',
      '  });',
      "  it('handles zero-decimal currencies', () => {",
      "    const jpy = (amount: number) => ({ amount, currency: 'JPY' as const });",
      '    expect(splitPayments(jpy(1000), 3)).toEqual([jpy(334), jpy(333), jpy(333)]);',
      '  });',
      "  it('never loses a cent (property)', () => {",
      '    for (let cents = 0; cents < 5000; cents += 7) {',
      '      for (let parts = 1; parts <= 12; parts++) {',
      '        const total = fromCents(cents, \'EUR\');',
      "        expect(toCents(sum(splitPayments(total, parts), 'EUR'))).toBe(cents);",
      '      }',
      '    }',
      '  });',
    );
  lines.push('});', '', "describe('multiply', () => {", "  it('rounds the product', () => {", '    expect(multiply(eur(19.99), 3)).toEqual(eur(59.97));', '  });', '});', '');
  return lines.join('\n');
}

const CURRENCY_TS = [
  "export type CurrencyCode = 'EUR' | 'USD' | 'GBP' | 'JPY' | 'CHF' | 'SEK' | 'PLN';",
  '',
  '/** Minor-unit digits per ISO 4217. */',
  'export const CURRENCY_DIGITS: Record<CurrencyCode, number> = {',
  '  EUR: 2,',
  '  USD: 2,',
  '  GBP: 2,',
  '  JPY: 0,',
  '  CHF: 2,',
  '  SEK: 2,',
  '  PLN: 2,',
  '};',
  '',
].join('\n');

function csvTs(): string {
  const lines = [
    "import { computeTotals, Invoice } from './invoice';",
    "import { format } from './money';",
    '',
    'const HEADER = [\'invoice\', \'customer\', \'installment\', \'amount\', \'currency\', \'due\'];',
    '',
    '/** One CSV row per installment, for the accounting export. */',
    'export function installmentsCsv(invoices: Invoice[]): string {',
    '  const rows = [HEADER.join(\',\')];',
    '  for (const inv of invoices) {',
    '    const totals = computeTotals(inv);',
    '    totals.schedule.forEach((m, i) => {',
    '      rows.push([inv.id, inv.customerId, String(i + 1), m.amount.toFixed(2), m.currency, inv.issuedAt].map(escape).join(\',\'));',
    '    });',
    '  }',
    "  return rows.join('\\n') + '\\n';",
    '}',
    '',
    'function escape(v: string): string {',
    '  return /[",\\n]/.test(v) ? `"${v.replace(/"/g, \'""\')}"` : v;',
    '}',
    '',
    'export function preview(inv: Invoice): string {',
    '  const t = computeTotals(inv);',
    "  return t.schedule.map((m, i) => `${i + 1}. ${format(m)}`).join('\\n');",
    '}',
    '',
  ];
  return lines.join('\n');
}

/** Historical VAT rates per region, category and year: a big, mostly irrelevant read (what compaction is for). */
function vatHistoryJson(): string {
  const entries: string[] = [];
  for (const r of REGIONS)
    for (const c of CATEGORIES)
      for (let year = 2021; year <= 2025; year++) {
        const rate = c === 'zero' ? 0 : c === 'standard' ? int(17, 27) : int(3, 14);
        entries.push(`    { "region": "${r}", "category": "${c}", "rate": ${rate}, "effective": "${year}-01-01", "source": "eu-taxud-${year}" }`);
      }
  return `{\n  "generated": "2025-12-31",\n  "rates": [\n${entries.join(',\n')}\n  ]\n}\n`;
}

/** `cat -n` style, as Claude Code's Read tool returns files. */
function catN(text: string, start = 1, limit?: number): string {
  const all = text.split('\n');
  const slice = all.slice(start - 1, limit ? start - 1 + limit : undefined);
  return slice.map((l, i) => `${String(start + i).padStart(6, ' ')}\t${l}`).join('\n');
}

// ── Line writers ──────────────────────────────────────────────────────────────────────────────

const out: unknown[] = [];
let parent: string | null = null;
let lastUuid = '';

function envelope(type: string): Record<string, unknown> {
  return { parentUuid: parent, isSidechain: false, userType: 'external', cwd: CWD, sessionId: SESSION, version: VERSION, gitBranch: BRANCH, type };
}

function push(line: Record<string, unknown>, uuidValue: string): void {
  out.push(line);
  parent = uuidValue;
  lastUuid = uuidValue;
}

/** The model's running context: what was sent on the last call, and what is new since then. */
const OVERHEAD = 15_842; // Claude Code's system prompt + tool schemas (not in the file).
let cached = 0;
let pending = OVERHEAD;

function userPrompt(text: string): void {
  const id = uuid();
  if (int(0, 2) === 0) {
    out.push({ type: 'file-history-snapshot', messageId: id, snapshot: { messageId: id, trackedFileBackups: {}, timestamp: new Date(clock).toISOString() }, isSnapshotUpdate: false });
  }
  push({ ...envelope('user'), message: { role: 'user', content: text }, uuid: id, timestamp: tick(20_000, 90_000), thinkingMetadata: { level: 'high', disabled: false, triggers: [] } }, id);
  pending += tokensOf(text) + 4;
}

type Block =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** One API response written the way Claude Code writes it: one content block per line, same message.id. */
function assistant(blocks: Block[]): void {
  const msgId = `msg_01${b62(22)}`;
  const requestId = `req_011C${b62(18)}`;
  const outputTotal = blocks.reduce((s, b) => s + (b.type === 'text' ? tokensOf(b.text) : b.type === 'thinking' ? tokensOf(b.thinking) : tokensOf(JSON.stringify(b.input)) + 12), 0);
  const cacheRead = cached;
  const cacheWrite = pending - cached - 3;
  const stop = blocks[blocks.length - 1].type === 'tool_use' ? 'tool_use' : 'end_turn';
  blocks.forEach((block, i) => {
    const last = i === blocks.length - 1;
    const id = uuid();
    // Early lines carry a partial streaming snapshot of output_tokens (FORMATS.md §4).
    const output = last ? outputTotal : Math.min(outputTotal, 1 + i * int(2, 9));
    push(
      {
        ...envelope('assistant'),
        message: {
          model: MODEL,
          id: msgId,
          type: 'message',
          role: 'assistant',
          content: [block],
          stop_reason: last ? stop : null,
          stop_sequence: null,
          usage: {
            input_tokens: 3,
            cache_creation_input_tokens: cacheWrite,
            cache_read_input_tokens: cacheRead,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: cacheWrite },
            output_tokens: output,
            service_tier: 'standard',
          },
        },
        requestId,
        type: 'assistant',
        uuid: id,
        timestamp: tick(800, 6_000),
      },
      id,
    );
  });
  cached = pending;
  pending += outputTotal;
}

function toolResult(toolUseId: string, content: string, toolUseResult: unknown, isError = false): void {
  const id = uuid();
  push(
    {
      ...envelope('user'),
      message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content, ...(isError && { is_error: true }) }] },
      uuid: id,
      timestamp: tick(150, 4_000),
      toolUseResult,
    },
    id,
  );
  pending += tokensOf(content) + 6;
}

const toolId = () => `toolu_01${b62(22)}`;
const think = (text: string): Block => ({ type: 'thinking', thinking: text, signature: b64(int(380, 720)) });
const say = (text: string): Block => ({ type: 'text', text });

// Tool helpers: each emits the call (as the last block of a response) and its result.
function read(pre: Block[], file: string, content: string, opts: { offset?: number; limit?: number } = {}): void {
  const id = toolId();
  const input: Record<string, unknown> = { file_path: `${CWD}/${file}`, ...(opts.offset && { offset: opts.offset }), ...(opts.limit && { limit: opts.limit }) };
  assistant([...pre, { type: 'tool_use', id, name: 'Read', input }]);
  const total = content.split('\n').length;
  const start = opts.offset ?? 1;
  const shown = catN(content, start, opts.limit);
  toolResult(id, shown, { type: 'text', file: { filePath: `${CWD}/${file}`, content: content.split('\n').slice(start - 1, opts.limit ? start - 1 + opts.limit : undefined).join('\n'), numLines: shown.split('\n').length, startLine: start, totalLines: total } });
}

function bash(pre: Block[], command: string, description: string, stdout: string, stderr = '', isError = false): void {
  const id = toolId();
  assistant([...pre, { type: 'tool_use', id, name: 'Bash', input: { command, description } }]);
  const content = isError ? `Error: ${[stdout, stderr].filter(Boolean).join('\n')}` : [stdout, stderr].filter(Boolean).join('\n');
  toolResult(id, content, isError ? `Error: ${stdout}` : { stdout, stderr, interrupted: false, isImage: false }, isError);
}

function grep(pre: Block[], pattern: string, files: string[], output_mode = 'files_with_matches'): void {
  const id = toolId();
  assistant([...pre, { type: 'tool_use', id, name: 'Grep', input: { pattern, path: CWD, output_mode } }]);
  const content = files.length ? `Found ${files.length} file${files.length === 1 ? '' : 's'}\n${files.join('\n')}` : 'No files found';
  toolResult(id, content, { mode: output_mode, filenames: files, numFiles: files.length });
}

function edit(pre: Block[], file: string, oldString: string, newString: string, after: string): void {
  const id = toolId();
  assistant([...pre, { type: 'tool_use', id, name: 'Edit', input: { file_path: `${CWD}/${file}`, old_string: oldString, new_string: newString } }]);
  const lines = after.split('\n');
  const at = Math.max(0, lines.findIndex((l) => l.includes(newString.split('\n')[0].trim())));
  const snippet = catN(after, Math.max(1, at - 3), Math.min(newString.split('\n').length + 8, lines.length));
  toolResult(
    id,
    `The file ${CWD}/${file} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`,
    {
      filePath: `${CWD}/${file}`,
      oldString,
      newString,
      structuredPatch: [{ oldStart: at + 1, oldLines: oldString.split('\n').length, newStart: at + 1, newLines: newString.split('\n').length, lines: [...oldString.split('\n').map((l) => '-' + l), ...newString.split('\n').map((l) => '+' + l)] }],
      userModified: false,
      replaceAll: false,
    },
  );
}

// ── Test outputs ──────────────────────────────────────────────────────────────────────────────

function vitestRun(failing: boolean, extra = false): string {
  const lines = [' RUN  v3.2.4 /home/dana/src/ledger-lite', ''];
  if (failing) {
    lines.push(
      ' ❯ test/money.test.ts (7 tests | 1 failed) 14ms',
      '   ✓ round2 > rounds half away from zero 1ms',
      '   ✓ cents > round-trips 0ms',
      '   ✓ cents > adds without float drift 0ms',
      '   ✓ splitPayments > splits evenly when it can 0ms',
      '   × splitPayments > splits 100.00 into 3 payments that sum to the total 6ms',
      '     → expected [ { amount: 33.33, …(1) }, …(2) ] to deeply equal [ { amount: 33.34, …(1) }, …(2) ]',
      '   ✓ splitPayments > rejects zero parts 0ms',
      '   ✓ multiply > rounds the product 0ms',
      ' ✓ test/invoice.test.ts (18 tests) 22ms',
      ' ✓ test/csv.test.ts (4 tests) 9ms',
      '',
      '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
      '',
      ' FAIL  test/money.test.ts > splitPayments > splits 100.00 into 3 payments that sum to the total',
      'AssertionError: expected [ { amount: 33.33, …(1) }, …(2) ] to deeply equal [ { amount: 33.34, …(1) }, …(2) ]',
      '',
      '- Expected',
      '+ Received',
      '',
      '  [',
      '    {',
      '-     "amount": 33.34,',
      '+     "amount": 33.33,',
      '      "currency": "EUR",',
      '    },',
      '    {',
      '      "amount": 33.33,',
      '      "currency": "EUR",',
      '    },',
      '    {',
      '      "amount": 33.33,',
      '      "currency": "EUR",',
      '    },',
      '  ]',
      '',
      ' ❯ test/money.test.ts:29:19',
      '     27|   it(\'splits 100.00 into 3 payments that sum to the total\', () => {',
      '     28|     const parts = splitPayments(eur(100), 3);',
      '     29|     expect(parts).toEqual([eur(33.34), eur(33.33), eur(33.33)]);',
      '       |                   ^',
      "     30|     expect(sum(parts, 'EUR')).toEqual(eur(100));",
      '     31|   });',
      '',
      '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯',
      '',
      ' Test Files  1 failed | 2 passed (3)',
      '      Tests  1 failed | 28 passed (29)',
      '   Start at  09:21:44',
      '   Duration  412ms (transform 96ms, setup 0ms, collect 188ms, tests 45ms, environment 0ms, prepare 131ms)',
    );
  } else {
    const n = extra ? 10 : 7;
    lines.push(` ✓ test/money.test.ts (${n} tests) ${extra ? 61 : 12}ms`, ' ✓ test/invoice.test.ts (18 tests) 21ms', ' ✓ test/csv.test.ts (4 tests) 8ms', '', ' Test Files  3 passed (3)', `      Tests  ${n + 22} passed (${n + 22})`, '   Start at  10:02:13', '   Duration  398ms');
  }
  return lines.join('\n');
}

// ── The session ───────────────────────────────────────────────────────────────────────────────

const MONEY_BUGGY = moneyTs(false);
const MONEY_FIXED = moneyTs(true);
const INVOICE = invoiceTs();
const TEST_OLD = moneyTestTs(false);
const TEST_NEW = moneyTestTs(true);
const CSV = csvTs();

function session(): void {
  // Turn 1: the report.
  userPrompt(
    'Customers on the 3-installment plan are seeing schedules that sum to 99.99 instead of 100.00 (issue #142). The failing test is in test/money.test.ts. Can you find the cause and fix it properly? Keep the public API of src/money.ts unchanged.',
  );
  bash(
    [
      think('The user reports installment schedules summing to 99.99 instead of 100.00. Classic floating-point/rounding issue when splitting money. First reproduce with the test suite, then read the money module.'),
      say("I'll start by reproducing the failure."),
    ],
    'npx vitest run',
    'Run the test suite',
    vitestRun(true),
    '',
    true,
  );
  read([say('One test fails exactly as reported. Let me read the money module.')], 'src/money.ts', MONEY_BUGGY);
  read([], 'src/currency.ts', CURRENCY_TS);
  assistant([
    think(
      'splitPayments divides the float amount and rounds each part with round2, then repeats the same value for every part. 100/3 = 33.333… → 33.33 × 3 = 99.99. The remainder cent is simply dropped. Also for JPY (0 digits) round2 is wrong — it rounds to 2 decimals regardless of currency. The fix: convert to minor units (toCents already respects CURRENCY_DIGITS), integer-divide, distribute the remainder one unit at a time to the first parts. Need to think about negative totals (refunds): Math.trunc toward zero and distribute with sign.',
    ),
    say(
      'Found it. `splitPayments` computes `round2(total.amount / parts)` once and repeats it, so for 100.00 / 3 every part is 33.33 and the remainder cent is lost (3 × 33.33 = 99.99). It also ignores the currency\'s minor units (JPY has none).\n\nThe robust fix is the "largest remainder" approach in integer minor units:\n1. convert the total to cents with `toCents` (already currency-aware),\n2. integer-divide by the number of parts,\n3. give the first `remainder` parts one extra cent.\n\nBefore I change it, let me check who else calls `splitPayments` so I don\'t break a caller that depends on equal parts.',
    ),
  ]);

  // Turn 2
  userPrompt('Sounds right. Check the callers first.');
  grep([think('Search for splitPayments usages across src and test.')], 'splitPayments', ['src/money.ts', 'src/invoice.ts', 'test/money.test.ts', 'test/invoice.test.ts']);
  read([say('`src/invoice.ts` uses it for the installment schedule. Reading it in full since totals flow through it.')], 'src/invoice.ts', INVOICE);
  read(
    [say('The rates table says it comes from the 2025 EU table; checking the data file it is generated from, in case rounding happens there too.')],
    'data/vat-history.json',
    vatHistoryJson(),
  );
  assistant([
    think('computeTotals calls splitPayments(gross, installments ?? 1). roundTotalsForDisplay maps round2 over the schedule, which is harmless once parts are exact cents. No caller assumes equal parts. csv.ts consumes schedule via computeTotals.'),
    say(
      "`computeTotals` in src/invoice.ts is the only production caller: `splitPayments(gross, invoice.installments ?? 1)`. Nothing assumes the parts are equal — `roundTotalsForDisplay` just rounds each one, and `src/csv.ts` writes one row per installment. So distributing the remainder is safe. I'll also check the CSV export since it prints amounts with `toFixed(2)`.",
    ),
  ]);

  // Turn 3
  userPrompt('Yes, look at the CSV export too — accounting imports it.');
  read([], 'src/csv.ts', CSV);
  assistant([
    say(
      '`installmentsCsv` writes `m.amount.toFixed(2)` for every installment. Once `splitPayments` returns exact cents the rows will sum to the invoice total. Note `toFixed(2)` would print JPY amounts as `334.00`; that is a separate formatting concern — I\'ll mention it at the end rather than widen this change.',
    ),
  ]);

  // Turn 4
  userPrompt('OK, go ahead with the fix.');
  edit(
    [think('Replace the body of splitPayments with the integer-cents version; keep the signature and the RangeError guard.'), say('Rewriting `splitPayments` to work in integer minor units:')],
    'src/money.ts',
    MONEY_BUGGY.slice(MONEY_BUGGY.indexOf('export function splitPayments'), MONEY_BUGGY.indexOf('export function sum')).trimEnd(),
    MONEY_FIXED.slice(MONEY_FIXED.indexOf('export function splitPayments'), MONEY_FIXED.indexOf('export function sum')).trimEnd(),
    MONEY_FIXED,
  );
  bash([say('Running the money tests:')], 'npx vitest run test/money.test.ts', 'Run money tests', vitestRun(false));
  assistant([say('The failing test passes now. Running the whole suite to be sure nothing else moved.')]);

  // Turn 5
  userPrompt('Run everything.');
  bash([], 'npx vitest run', 'Run the full test suite', vitestRun(false));
  assistant([say('All 29 tests pass.')]);

  // Turn 6
  userPrompt('Add tests for refunds (negative totals) and for JPY.');
  read([say('Re-reading the test file before adding cases.')], 'test/money.test.ts', TEST_OLD);
  edit(
    [think('Add three cases in the splitPayments describe: negative totals keep the sign, JPY zero-decimal, and a property-style loop asserting the sum of parts equals the total in cents.')],
    'test/money.test.ts',
    "  it('rejects zero parts', () => {\n    expect(() => splitPayments(eur(10), 0)).toThrow(RangeError);\n  });",
    TEST_NEW.slice(TEST_NEW.indexOf("  it('rejects zero parts'"), TEST_NEW.indexOf("});\n\ndescribe('multiply'")).trimEnd(),
    TEST_NEW,
  );
  bash([], 'npx vitest run test/money.test.ts', 'Run money tests', vitestRun(false, true));
  assistant([say('Added three cases — refunds keep their sign (−3.34, −3.33, −3.33), JPY splits 1000 into 334/333/333, and a loop over 714 totals × 12 part counts checks that no cent is ever lost. All pass.')]);

  // Turns 7–21: review, edge cases, typing, docs.
  const followUps: Array<{ prompt: string; run: () => void }> = [
    {
      prompt: 'What happens with parts = 1 and with a total of 0?',
      run: () =>
        assistant([
          think('parts=1: base = cents, remainder 0 → single part equal to total. total 0: base 0, remainder 0 → all zeros. Both covered by the property loop (cents starts at 0, parts from 1).'),
          say('With `parts = 1` the single part is the total itself; with a total of 0 every part is 0. Both are covered by the property test (it starts at 0 cents and 1 part).'),
        ]),
    },
    {
      prompt: 'Is multiply affected by the same problem?',
      run: () => {
        read([], 'src/money.ts', MONEY_FIXED, { offset: 30, limit: 12 });
        assistant([
          say(
            '`multiply` rounds a single product with `round2`, so it cannot lose a cent across parts — but, like the old split, it ignores the currency\'s minor units. For JPY `multiply(jpy(333), 1.1)` gives 366.3 instead of 366. Worth a follow-up; I have not changed it.',
          ),
        ]);
      },
    },
    {
      prompt: 'Check git status and show me the diff.',
      run: () =>
        bash(
          [],
          'git status --short && git diff --stat',
          'Show changed files',
          ' M src/money.ts\n M test/money.test.ts\n src/money.ts        | 18 ++++++++++++++----\n test/money.test.ts  | 17 +++++++++++++++++\n 2 files changed, 31 insertions(+), 4 deletions(-)',
        ),
    },
    {
      prompt: 'Does typecheck pass?',
      run: () => bash([], 'npx tsc --noEmit', 'Typecheck', ''),
    },
    {
      prompt: 'Lint too.',
      run: () => bash([], 'npx eslint src test', 'Lint sources and tests', ''),
    },
    {
      prompt: 'Run the invoice tests verbosely.',
      run: () =>
        bash(
          [],
          'npx vitest run test/invoice.test.ts --reporter=verbose',
          'Run invoice tests (verbose)',
          [' RUN  v3.2.4 /home/dana/src/ledger-lite', '']
            .concat(
              ['taxRate', 'lineNet', 'lineTax', 'computeTotals', 'dueDate', 'validateInvoice'].flatMap((g) =>
                ['returns the standard rate for unknown categories', 'applies discounts', 'rounds each line', 'throws on unknown regions', 'handles empty inputs', 'keeps the currency', 'splits the schedule'].slice(0, 3).map((t) => ` ✓ test/invoice.test.ts > ${g} > ${t} ${int(0, 3)}ms`),
              ),
            )
            .concat(['', ' Test Files  1 passed (1)', '      Tests  18 passed (18)', '   Duration  301ms'])
            .join('\n'),
        ),
    },
    {
      prompt: 'What is the test coverage for src/money.ts now?',
      run: () =>
        bash(
          [],
          'npx vitest run --coverage --coverage.include=src',
          'Coverage for src',
          [' % Coverage report from v8', '-------------------|---------|----------|---------|---------|-------------------', 'File               | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s ', '-------------------|---------|----------|---------|---------|-------------------', 'All files          |   94.81 |    90.47 |   96.15 |   94.81 |                   ', ' src               |   94.11 |    89.74 |   95.65 |   94.11 |                   ', '  csv.ts           |     100 |      100 |     100 |     100 |                   ', '  currency.ts      |     100 |      100 |     100 |     100 |                   ', '  invoice.ts       |   91.42 |    85.71 |   93.75 |   91.42 | 331-334,341       ', '  money.ts         |   98.21 |    95.45 |     100 |   98.21 | 64                ', ' src/reports       |     100 |      100 |     100 |     100 |                   ', '  averages.ts      |     100 |      100 |     100 |     100 |                   ', '-------------------|---------|----------|---------|---------|-------------------'].join('\n'),
        ),
    },
    {
      prompt: 'Try 0.05 split into 7 installments.',
      run: () =>
        bash([], "npx tsx -e \"import {splitPayments} from './src/money'; console.log(JSON.stringify(splitPayments({amount:0.05,currency:'EUR'},7)))\"", 'Split 0.05 EUR into 7', '[{"amount":0.01,"currency":"EUR"},{"amount":0.01,"currency":"EUR"},{"amount":0.01,"currency":"EUR"},{"amount":0.01,"currency":"EUR"},{"amount":0.01,"currency":"EUR"},{"amount":0,"currency":"EUR"},{"amount":0,"currency":"EUR"}]'),
    },
    {
      prompt: "Why not just use banker's rounding instead?",
      run: () =>
        assistant([
          think('Bankers rounding changes how .5 ties are broken but each part is still rounded independently, so the sum can still differ from the total. Only distributing the remainder guarantees the invariant.'),
          say(
            "Banker's rounding only changes how ties (x.xx5) are broken. Each part would still be rounded independently, so 100.00 / 3 would still give 33.33 three times. The invariant we need — parts sum to the total — only holds if the remainder is handed out explicitly, which is what the integer-cents split does. Rounding mode is orthogonal; `round2` keeps half-away-from-zero for single values.",
          ),
        ]),
    },
    {
      prompt: 'Does the currency table cover CHF and SEK?',
      run: () => {
        read([], 'src/currency.ts', CURRENCY_TS);
        assistant([say('Yes: CHF and SEK both have 2 minor digits; JPY is the only zero-decimal currency in the table.')]);
      },
    },
    {
      prompt: 'Show the git log for src/money.ts.',
      run: () =>
        bash([], 'git log --oneline -8 -- src/money.ts', 'History of money.ts', '9b2f0e1 Add multiply and format helpers\n61c7d3a Currency-aware cents conversion\n2d9e4b8 splitPayments for installment plans\n0a1f5c2 Money type and round2\ne7c3b90 Initial commit'),
    },
    {
      prompt: 'Could we overflow with large amounts now that we use cents?',
      run: () =>
        assistant([
          say(
            'Not in practice: cents are plain JS numbers, exact up to 2^53 − 1 ≈ 9.0 × 10^15 cents, i.e. about 90 trillion EUR per amount. The intermediate `base * parts` stays within the total. BigInt would only be needed for amounts beyond that.',
          ),
        ]),
    },
    {
      prompt: 'Check the test fixtures for installment values we might need to update.',
      run: () => {
        read(
          [],
          'test/fixtures.ts',
          "import type { Invoice } from '../src/invoice';\n\nexport function invoice(overrides: Partial<Invoice> = {}): Invoice {\n  return {\n    id: 'INV-0001',\n    customerId: 'C-42',\n    region: 'DE',\n    currency: 'EUR',\n    issuedAt: '2026-01-15',\n    dueDays: 30,\n    items: [{ sku: 'SKU-1', description: 'Consulting', quantity: 1, unitPrice: { amount: 84.03, currency: 'EUR' }, category: 'standard' }],\n    ...overrides,\n  };\n}\n",
        );
        assistant([say('The fixture builds a 100.00 gross invoice (84.03 + 19 % VAT); no hard-coded installment amounts, so nothing to update.')]);
      },
    },
    {
      prompt: 'Look for other places that divide money amounts directly.',
      run: () => {
        grep([], '\\.amount\\s*/', ['src/money.ts', 'src/reports/averages.ts']);
        read([], 'src/reports/averages.ts', "import { Money, round2 } from '../money';\n\n/** Average invoice value, for the dashboard. Display only. */\nexport function averageAmount(values: Money[]): number {\n  if (values.length === 0) return 0;\n  return round2(values.reduce((s, m) => s + m.amount, 0) / values.length);\n}\n");
        assistant([say('Only `src/reports/averages.ts` divides an amount directly, and it is a display-only average, so rounding there is expected. No other split logic exists.')]);
      },
    },
  ];
  for (const f of followUps) {
    userPrompt(f.prompt);
    f.run();
  }

  // A re-read of the big file (the dedup candidate), then more review.
  userPrompt('Before we wrap up, re-check computeTotals: does the schedule still sum to gross for every region?');
  read([think('Re-read invoice.ts to check computeTotals end to end with the new split.')], 'src/invoice.ts', INVOICE);
  bash(
    [say('Let me verify it empirically across all regions and categories:')],
    "npx tsx -e \"import {TAX_RATES,computeTotals} from './src/invoice'; let bad=0; for (const r of Object.keys(TAX_RATES)) for (let n=1;n<=12;n++){ const t=computeTotals({id:'x',customerId:'c',region:r,currency:'EUR',issuedAt:'2026-01-01',dueDays:30,installments:n,items:[{sku:'a',description:'a',quantity:3,unitPrice:{amount:33.33,currency:'EUR'},category:'standard'}]}); const s=t.schedule.reduce((a,m)=>a+Math.round(m.amount*100),0); if(s!==Math.round(t.gross.amount*100)) bad++; } console.log('mismatches:', bad)\"",
    'Check schedules sum to gross for all regions',
    'mismatches: 0',
  );
  assistant([say('Across all 27 regions and 1–12 installments, every schedule sums exactly to the gross total.')]);

  for (const p of [
    'Write a short changelog entry.',
    'Also update the README section on installments.',
    'Show me the final version of splitPayments.',
  ]) {
    userPrompt(p);
    if (p.startsWith('Write')) assistant([say('**Fixed** — `splitPayments` no longer loses the remainder cent: installments are computed in integer minor units and the first parts carry the extra cent, so a schedule always sums to the invoice total (#142). Zero-decimal currencies (JPY) now split into whole units.')]);
    else if (p.startsWith('Also')) {
      read([], 'README.md', '# ledger-lite\n\nTiny invoicing helpers: money arithmetic, VAT, installment schedules, CSV export.\n\n## Installments\n\n`computeTotals(invoice).schedule` splits the gross total into `invoice.installments` equal payments.\n');
      edit([], 'README.md', 'splits the gross total into `invoice.installments` equal payments.', 'splits the gross total into `invoice.installments` payments that always sum to the total: amounts are computed in minor units and the first payments carry any remainder (100.00 / 3 → 33.34, 33.33, 33.33).', '# ledger-lite\n\nTiny invoicing helpers: money arithmetic, VAT, installment schedules, CSV export.\n\n## Installments\n\n`computeTotals(invoice).schedule` splits the gross total into `invoice.installments` payments that always sum to the total: amounts are computed in minor units and the first payments carry any remainder (100.00 / 3 → 33.34, 33.33, 33.33).\n');
      assistant([say('README updated.')]);
    } else {
      read([], 'src/money.ts', MONEY_FIXED, { offset: 38, limit: 16 });
      assistant([say('That is the final version: integer cents, remainder distributed to the first parts, sign preserved for refunds.')]);
    }
  }

  // The user compacts the conversation by hand (/compact): command line, boundary, summary.
  const preTokens = pending;
  const cmd = uuid();
  push({ ...envelope('user'), message: { role: 'user', content: '<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>' }, uuid: cmd, timestamp: tick(30_000, 60_000) }, cmd);
  const boundary = uuid();
  out.push({
    parentUuid: null,
    logicalParentUuid: lastUuid,
    isSidechain: false,
    userType: 'external',
    cwd: CWD,
    sessionId: SESSION,
    version: VERSION,
    gitBranch: BRANCH,
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    isMeta: false,
    timestamp: tick(20_000, 40_000),
    uuid: boundary,
    level: 'info',
    compactMetadata: { trigger: 'manual', preTokens },
  });
  parent = boundary;
  const summaryText = [
    'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
    'Analysis:',
    'The user asked to fix issue #142: 3-installment schedules summing to 99.99 instead of 100.00, keeping the public API of src/money.ts unchanged.',
    '',
    'Summary:',
    '1. Primary Request and Intent: fix the lost remainder cent in `splitPayments` (src/money.ts) properly, with tests; check callers and the CSV export used by accounting.',
    '2. Key Technical Concepts: integer minor units (cents) via `toCents`/`fromCents` and `CURRENCY_DIGITS`; largest-remainder distribution; refunds keep their sign; JPY has 0 decimals.',
    '3. Files and Code Sections:',
    '   - src/money.ts: `splitPayments` rewritten to integer-cent division with the remainder given to the first parts.',
    '   - test/money.test.ts: added refund, JPY and a property loop (714 totals × 12 part counts).',
    '   - src/invoice.ts: `computeTotals` is the only production caller (`splitPayments(gross, installments ?? 1)`); verified all 27 regions × 1–12 installments sum to gross.',
    '   - src/csv.ts: writes `toFixed(2)` per installment (JPY would print 334.00 — noted, not changed).',
    '   - README.md: installments section updated.',
    '4. Errors and fixes: the only failure was the original assertion (33.33 vs 33.34); now all tests, typecheck and lint pass.',
    '5. Pending Tasks: `multiply` ignores minor units for JPY (follow-up); CSV formatting of zero-decimal currencies.',
    '6. Current Work: the fix is complete and verified; the user was reviewing the final `splitPayments`.',
  ].join('\n');
  const sum = uuid();
  push({ ...envelope('user'), message: { role: 'user', content: summaryText }, isVisibleInTranscriptOnly: true, isCompactSummary: true, uuid: sum, timestamp: tick(100, 500) }, sum);
  const local = uuid();
  push({ ...envelope('user'), message: { role: 'user', content: '<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>' }, isMeta: true, uuid: local, timestamp: tick(50, 200) }, local);
  // After compaction the model sees the overhead + the summary only.
  cached = 0;
  pending = OVERHEAD + tokensOf(summaryText) + 40;

  // Turns after the compaction: the follow-ups noted as pending.
  userPrompt('Now fix multiply for zero-decimal currencies too, same approach.');
  read([think('The summary says multiply ignores minor units. Re-read the current money.ts after compaction since its content is no longer in context.'), say('Re-reading src/money.ts (its content was compacted away):')], 'src/money.ts', MONEY_FIXED);
  const MONEY_MUL = MONEY_FIXED.replace(
    'export function multiply(a: Money, factor: number): Money {\n  return { amount: round2(a.amount * factor), currency: a.currency };\n}',
    'export function multiply(a: Money, factor: number): Money {\n  // Round in minor units so zero-decimal currencies (JPY) stay whole.\n  return fromCents(Math.round(toCents(a) * factor), a.currency);\n}',
  );
  edit(
    [],
    'src/money.ts',
    'export function multiply(a: Money, factor: number): Money {\n  return { amount: round2(a.amount * factor), currency: a.currency };\n}',
    'export function multiply(a: Money, factor: number): Money {\n  // Round in minor units so zero-decimal currencies (JPY) stay whole.\n  return fromCents(Math.round(toCents(a) * factor), a.currency);\n}',
    MONEY_MUL,
  );
  bash([], 'npx vitest run', 'Run the full test suite', vitestRun(false, true));
  assistant([say('`multiply` now rounds in minor units; the suite still passes.')]);

  const tail: Array<[string, () => void]> = [
    ['Add a JPY test for multiply.', () => {
      edit([], 'test/money.test.ts', "    expect(multiply(eur(19.99), 3)).toEqual(eur(59.97));", "    expect(multiply(eur(19.99), 3)).toEqual(eur(59.97));\n    expect(multiply({ amount: 333, currency: 'JPY' }, 1.1)).toEqual({ amount: 366, currency: 'JPY' });", TEST_NEW);
      bash([], 'npx vitest run test/money.test.ts', 'Run money tests', vitestRun(false, true));
    }],
    ['Fix the CSV formatting for JPY as well.', () => {
      read([], 'src/csv.ts', CSV);
      edit([], 'src/csv.ts', 'm.amount.toFixed(2)', 'm.amount.toFixed(CURRENCY_DIGITS[m.currency])', CSV.replace('m.amount.toFixed(2)', 'm.amount.toFixed(CURRENCY_DIGITS[m.currency])'));
      edit([], 'src/csv.ts', "import { format } from './money';", "import { format } from './money';\nimport { CURRENCY_DIGITS } from './currency';", CSV);
    }],
    ['Run the CSV tests.', () => bash([], 'npx vitest run test/csv.test.ts', 'Run CSV tests', ' ✓ test/csv.test.ts (4 tests) 8ms\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)')],
    ['Add a CSV test with a JPY invoice in 3 installments.', () => {
      read([], 'test/csv.test.ts', "import { describe, expect, it } from 'vitest';\nimport { installmentsCsv } from '../src/csv';\nimport { invoice } from './fixtures';\n\ndescribe('installmentsCsv', () => {\n  it('writes a header', () => {\n    expect(installmentsCsv([]).split('\\n')[0]).toBe('invoice,customer,installment,amount,currency,due');\n  });\n  it('writes one row per installment', () => {\n    expect(installmentsCsv([invoice({ installments: 3 })]).trim().split('\\n')).toHaveLength(4);\n  });\n  it('escapes commas', () => {\n    expect(installmentsCsv([invoice({ customerId: 'a,b' })])).toContain('\"a,b\"');\n  });\n  it('sums to gross', () => {\n    const rows = installmentsCsv([invoice({ installments: 3 })]).trim().split('\\n').slice(1);\n    expect(rows.reduce((s, r) => s + Number(r.split(',')[3]), 0)).toBeCloseTo(100, 2);\n  });\n});\n");
      edit([], 'test/csv.test.ts', "  it('sums to gross', () => {", "  it('writes JPY without decimals', () => {\n    const csv = installmentsCsv([invoice({ currency: 'JPY', installments: 3, items: [{ sku: 'a', description: 'a', quantity: 1, unitPrice: { amount: 1000, currency: 'JPY' }, category: 'zero' }] })]);\n    expect(csv).toContain(',334,JPY,');\n  });\n  it('sums to gross', () => {", '');
      bash([], 'npx vitest run test/csv.test.ts', 'Run CSV tests', ' ✓ test/csv.test.ts (5 tests) 9ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)');
    }],
    ['Full suite, typecheck and lint one more time.', () => {
      bash([], 'npx vitest run && npx tsc --noEmit && npx eslint src test', 'Tests, typecheck, lint', vitestRun(false, true));
    }],
    ['Bump the patch version.', () => {
      read([], 'package.json', '{\n  "name": "ledger-lite",\n  "version": "1.4.2",\n  "type": "module",\n  "scripts": {\n    "test": "vitest run",\n    "lint": "eslint src test",\n    "typecheck": "tsc --noEmit"\n  }\n}\n');
      edit([], 'package.json', '"version": "1.4.2"', '"version": "1.4.3"', '{\n  "name": "ledger-lite",\n  "version": "1.4.3"\n}\n');
    }],
    ['Add the changelog entry to CHANGELOG.md.', () => {
      read([], 'CHANGELOG.md', '# Changelog\n\n## 1.4.2\n\n- Fixed VAT for Croatian hotel category.\n');
      edit([], 'CHANGELOG.md', '# Changelog\n', '# Changelog\n\n## 1.4.3\n\n- Fixed: installment schedules lost the remainder cent (#142).\n- Fixed: zero-decimal currencies in multiply and the CSV export.\n', '# Changelog\n');
    }],
    ['Commit with a good message.', () => {
      bash([], 'git add src test README.md && git commit -m "Split installments in integer minor units (#142)" -m "splitPayments lost the remainder cent (100.00 / 3 summed to 99.99). Amounts are now split in minor units and the first parts carry the remainder; multiply and the CSV export respect zero-decimal currencies."', 'Commit the fix', '[fix/split-rounding 4e1c9a2] Split installments in integer minor units (#142)\n 5 files changed, 58 insertions(+), 9 deletions(-)');
    }],
    ['Push and open a PR.', () => {
      bash([], 'git push -u origin fix/split-rounding && gh pr create --fill', 'Push and open a pull request', "branch 'fix/split-rounding' set up to track 'origin/fix/split-rounding'.\nhttps://github.com/dana/ledger-lite/pull/143");
    }],
    ['Thanks! Summarize what changed for the PR description.', () =>
      assistant([
        say(
          '## Split installments in integer minor units (#142)\n\n**Problem.** `splitPayments` divided the float amount and repeated one rounded part, so 100.00 in 3 installments became 3 × 33.33 = 99.99.\n\n**Fix.**\n- `splitPayments` works in minor units (`toCents`), integer-divides, and gives the first parts one extra unit each — schedules always sum to the total; refunds keep their sign.\n- `multiply` rounds in minor units, so JPY amounts stay whole.\n- The CSV export prints each currency with its own number of decimals.\n\n**Tests.** Refunds, JPY, a property loop over 714 totals × 12 part counts, and a JPY CSV case. Checked all 27 regions × 1–12 installments against `computeTotals`.',
        ),
      ])],
  ];
  for (const [p, run] of tail) {
    userPrompt(p);
    run();
    if (!(out[out.length - 1] as { type: string }).type.startsWith('assistant')) assistant([say('Done.')]);
  }

  // Short review turns to reach a realistic session length.
  const review = [
    ['Are there any TODOs left in src?', 'TODO|FIXME', [] as string[]],
    ['Any other callers of round2 that might need minor units?', 'round2\\(', ['src/money.ts', 'src/invoice.ts', 'src/reports/averages.ts']],
  ] as const;
  for (const [p, pattern, files] of review) {
    userPrompt(p);
    grep([], pattern, [...files]);
    assistant([say(files.length ? `\`round2\` remains in ${files.join(', ')}: all display rounding of single values, which is correct there.` : 'No TODO or FIXME comments in src.')]);
  }
  userPrompt('Great, that is all for today.');
  assistant([say('Done: the fix is pushed as PR #143 with tests. The follow-ups from the review (multiply and CSV for zero-decimal currencies) are included in the same PR.')]);
}

let generated: string | undefined;

/**
 * The sample's text. The generator's state (PRNG, clock, lines) is module-level and consumed once,
 * so the result is computed once per process and cached.
 */
export function makeSample(): string {
  if (generated !== undefined) return generated;
  session();
  // The session title line Claude Code writes at the top (summary of the leaf).
  const lines = [JSON.stringify({ type: 'summary', summary: 'Fix lost cent in installment splits (#142)', leafUuid: lastUuid }), ...out.map((o) => JSON.stringify(o))];
  generated = lines.join('\n') + '\n';
  return generated;
}

export const SAMPLE_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'public', 'sample', 'contextscope-demo.jsonl');

function main(): void {
  const text = makeSample();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(SAMPLE_PATH) ? fs.readFileSync(SAMPLE_PATH, 'utf8') : '';
    if (current !== text) {
      console.error(`${SAMPLE_PATH} is stale: run npx tsx scripts/make-sample.ts`);
      process.exit(1);
    }
    console.log('sample is up to date');
  } else {
    fs.mkdirSync(path.dirname(SAMPLE_PATH), { recursive: true });
    fs.writeFileSync(SAMPLE_PATH, text);
    console.log(`wrote ${path.relative(process.cwd(), SAMPLE_PATH)}: ${text.split('\n').length - 1} lines, ${(text.length / 1024).toFixed(0)} KB`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
