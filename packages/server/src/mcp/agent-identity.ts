/**
 * Who `aar mcp` acts for: one agent, for one principal, with one card token. Fixed at start (flags), never taken from
 * a tool's arguments: the model driving the agent cannot switch principal, agent or card. The ids are the service's
 * (CONTRACT section 1); short forms are expanded here so every request names them the same way.
 */
import { tryParseEntityId } from '@aar/core';

export interface AgentIdentity {
  /** `ns:entity:agent:<id>`: also the RFC 9421 `keyid` of every signed request */
  agent: string;
  /** `ns:entity:person:<id>` or `ns:entity:organisation:<id>` */
  principal: string;
  /** `ns:card_token:<id>`: a token id, never a card number */
  instrument: string;
}

const PLAIN_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** `shopper-1` -> `ns:entity:agent:shopper-1`; a full id is kept as given (the service checks it). */
export function agentId(value: string): string {
  return PLAIN_ID.test(value) ? `ns:entity:agent:${value}` : (tryParseEntityId(value)?.id ?? value);
}

export function principalId(value: string): string {
  return PLAIN_ID.test(value) ? `ns:entity:person:${value}` : (tryParseEntityId(value)?.id ?? value);
}

export function instrumentId(value: string): string {
  return PLAIN_ID.test(value) ? `ns:card_token:${value}` : value;
}
