import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '@/lib/formats/import';
import { corpusFiles } from '@/tests/corpus';
import { splitHighlight } from '@/components/search/search';
import { buildRows } from './rows';
import { parseQuery, searchRows } from './search';

const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker_claude_code'))!;
const t = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
const rows = buildRows(t.messages, []);

describe('transcript search over rows (works when the list is virtualized)', () => {
  it('text, tool: and role: queries on a real session', () => {
    const bash = searchRows(rows, parseQuery('tool:Bash'));
    const callsToBash = t.messages.filter((m) => m.blocks.some((b) => b.kind === 'tool_call' && b.name === 'Bash')).length;
    expect(bash.length).toBe(callsToBash);
    expect(bash.length).toBeGreaterThan(0);
    const users = searchRows(rows, parseQuery('role:user'));
    expect(users.length).toBeGreaterThan(0);
    for (const i of users) expect(rows[i].kind === 'message' && rows[i].message.role).toBe('user');
    // Hits are row indexes in list order.
    expect([...bash].sort((a, b) => a - b)).toEqual(bash);
    expect(searchRows(rows, parseQuery('role:user'), 2)).toEqual(users.slice(0, 2));
    // A word from a tool result is found on the row of its call (results are folded under calls).
    const result = t.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result' && b.content.length > 40);
    const word = result && result.kind === 'tool_result' ? result.content.trim().split(/\s+/).find((w) => w.length > 6)! : '';
    expect(searchRows(rows, parseQuery(word.toUpperCase())).length).toBeGreaterThan(0);
    expect(searchRows(rows, parseQuery('zz-no-such-text-zz'))).toEqual([]);
    expect(parseQuery('   ')).toBeNull();
  });

  it('splits text around hits, case-insensitively', () => {
    expect(splitHighlight('Read the README, read it', 'read')).toEqual([
      { text: 'Read', hit: true },
      { text: ' the ', hit: false },
      { text: 'READ', hit: true },
      { text: 'ME, ', hit: false },
      { text: 'read', hit: true },
      { text: ' it', hit: false },
    ]);
  });
});
