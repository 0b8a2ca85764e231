/**
 * The states a decision map's nodes name (`ns:state:<name>`): the worst risk state the decision read (state node),
 * and `no_authority` when no grant covered the request (delegation node). `GET /v1/states/{id}` resolves them.
 * These names are public contract: maps already signed carry them.
 */
import { AarError } from '@aar/core';

export interface StateView {
  state_id: string;
  name: string;
  description: string;
  /** what an authorize decision does when it reads this state */
  effect: string;
}

const STATES: readonly StateView[] = [
  {
    name: 'risk_normal',
    description: 'no risk signal is set on the agent, the principal or the card token',
    effect: 'none',
  },
  {
    name: 'risk_elevated',
    description: 'a risk signal marks the agent, the principal or the card token as elevated',
    effect: '`require_approval` with reason `risk_state_elevated`',
  },
  {
    name: 'risk_blocked',
    description: 'a risk signal blocks the agent, the principal or the card token',
    effect: '`deny` with reason `risk_state_blocked`',
  },
  {
    name: 'risk_unknown',
    description:
      'the decision did not read a risk state (it was decided before the risk check, or the snapshot lacks it)',
    effect: 'none: an earlier check decided',
  },
  {
    name: 'no_authority',
    description: 'no active grant covers the actor, principal, capability and card token of the request',
    effect: '`deny` with reason `authority_not_found` or `capability_not_granted`',
  },
].map((s) => ({ ...s, state_id: `ns:state:${s.name}` }));

export function listStates(): StateView[] {
  return STATES.map((s) => ({ ...s }));
}

export function getState(id: string): StateView {
  const state = STATES.find((s) => s.state_id === id);
  if (!state) throw new AarError('not_found', `no state \`${id.slice(0, 160)}\``);
  return { ...state };
}
