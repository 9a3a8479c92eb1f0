import { expect, it } from 'vitest';
import { REPLAY_POLICIES } from '../../lib/simulate/policies/replay';
import { REPLAY_PARTS, REPLAY_POLICY_LIST } from './policy-list';

it('the Policies menu lists exactly the replayed policies, in order, with their labels', () => {
  expect(REPLAY_POLICY_LIST.map((p) => [p.id, p.label])).toEqual(REPLAY_POLICIES.map((p) => [p.id, p.label]));
});

it("the Replay page's parts ask every replayed policy once", () => {
  expect(REPLAY_PARTS.flat().sort()).toEqual(REPLAY_POLICIES.map((p) => p.id).sort());
});
