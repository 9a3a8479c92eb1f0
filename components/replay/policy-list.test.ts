import { expect, it } from 'vitest';
import { REPLAY_POLICIES } from '../../lib/simulate/policies/replay';
import { REPLAY_POLICY_LIST } from './policy-list';

it('the Policies menu lists exactly the replayed policies, in order, with their labels', () => {
  expect(REPLAY_POLICY_LIST.map((p) => [p.id, p.label])).toEqual(REPLAY_POLICIES.map((p) => [p.id, p.label]));
});
