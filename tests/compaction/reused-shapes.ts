/** Claude Code sessions of the four reused tool-call id shapes of issue 30 (tests and the property test). */
export function claudeSession(turns: Array<Array<{ role: 'user' | 'assistant'; content: unknown[] | string }>>): string {
  const lines: object[] = [];
  let n = 0;
  let parent: string | null = null;
  for (const t of turns)
    for (const m of t) {
      const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
      const base = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/repo', sessionId: 's1', version: '2.0.65', type: m.role, uuid, timestamp: `2025-12-12T10:00:${String(n % 60).padStart(2, '0')}.000Z` };
      lines.push(m.role === 'user' ? { ...base, message: { role: 'user', content: m.content } } : { ...base, message: { id: `msg_${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: m.content, stop_reason: 'tool_use', usage: { input_tokens: 100, output_tokens: 10 } }, requestId: `req_${n}` });
      parent = uuid;
    }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
const body = (f: string, n = 40) => Array.from({ length: n }, (_, k) => `${k + 1}\tconst ${f}_${k} = ${k}; // some code line here`).join('\n');
const use = (id: string, name: string, input: object) => ({ type: 'tool_use', id, name, input });
const res = (id: string, text: string) => ({ type: 'tool_result', tool_use_id: id, content: text });
const say = (t: string) => ({ type: 'text', text: t });
const user = (t: string) => ({ role: 'user' as const, content: t });
const filler = (i: number) => [user(`step ${i}: keep going with the task`), { role: 'assistant' as const, content: [say(`done step ${i}. ` + 'words '.repeat(30))] }];

/** dedup-tools: one assistant message, two identical Read calls sharing call_1, one result. */
export const dedupShape = () => claudeSession([
  [user('read a.ts twice'), { role: 'assistant', content: [use('call_1', 'Read', { file_path: '/repo/a.ts' }), use('call_1', 'Read', { file_path: '/repo/a.ts' })] }, { role: 'user', content: [res('call_1', body('a'))] }, { role: 'assistant', content: [say('read it')] }],
  filler(1), filler(2),
]);
/** classify-tangents: turn 5 has call_1 with no result, turn 6 reuses call_1 with a result. */
export const tangentShape = () => claudeSession([
  filler(1), filler(2), filler(3), filler(4),
  [user('turn 5: read b'), { role: 'assistant', content: [use('call_1', 'Read', { file_path: '/repo/b.ts' })] }, { role: 'assistant', content: [say('(interrupted)')] }],
  [user('turn 6: read c'), { role: 'assistant', content: [use('call_1', 'Read', { file_path: '/repo/c.ts' })] }, { role: 'user', content: [res('call_1', body('c'))] }, { role: 'assistant', content: [say('read c')] }],
  filler(7),
]);
/** emergency: the same shape over turns 1–2. */
export const emergencyShape = () => claudeSession([
  [user('turn 1: read b'), { role: 'assistant', content: [use('call_1', 'Read', { file_path: '/repo/b.ts' })] }, { role: 'assistant', content: [say('(interrupted)')] }],
  [user('turn 2: read c'), { role: 'assistant', content: [use('call_1', 'Read', { file_path: '/repo/c.ts' })] }, { role: 'user', content: [res('call_1', body('c'))] }, { role: 'assistant', content: [say('read c')] }],
  filler(3),
]);
/** export: call_1 answered by a result carrying another id, then call_1 reused beside call_3 in one message. */
export const exportShape = () => claudeSession([
  [user('read a'), { role: 'assistant', content: [use('call_1', 'Read', { file_path: '/repo/a.ts' })] }, { role: 'user', content: [res('call_2', body('a'))] }, { role: 'assistant', content: [say('hm')] }],
  [user('read a and b'), { role: 'assistant', content: [use('call_1', 'Read', { file_path: '/repo/a.ts' }), use('call_3', 'Read', { file_path: '/repo/b.ts' })] }, { role: 'user', content: [res('call_1', body('a')), res('call_3', body('b'))] }, { role: 'assistant', content: [say('both read')] }],
  filler(2),
]);
