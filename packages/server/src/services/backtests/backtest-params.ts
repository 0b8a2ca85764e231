/**
 * The body of `POST /v1/rule-packs/{name}/versions/{version}/backtests`: `{ from, until, principal_entity_id? }`, a
 * half-open range [from, until) of the decisions' instants. Attacker assumption: every value is the caller's; each
 * is validated (400 naming the member) before anything is written.
 */
import { fieldError, tryParseEntityId } from '@aar/core';

export interface BacktestBody {
  from: string;
  until: string;
  principal_entity_id?: string | undefined;
}

export interface BacktestParams {
  /** canonical `toISOString()` text, comparable with the stored `now` as text */
  from: string;
  until: string;
  principal_entity_id?: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function readBacktestParams(body: BacktestBody): BacktestParams {
  const from = instant(body.from, '/from');
  const until = instant(body.until, '/until');
  if (from >= until) throw fieldError('invalid_request', '/until', 'must be later than `from`');
  if (body.principal_entity_id === undefined) return { from, until };
  const parsed = tryParseEntityId(body.principal_entity_id);
  if (!parsed) throw fieldError('invalid_request', '/principal_entity_id', 'is not an entity id');
  return { from, until, principal_entity_id: parsed.id };
}

function instant(value: string, pointer: string): string {
  const ms = ISO_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw fieldError('invalid_request', pointer, 'must be an ISO 8601 instant with its offset');
  return new Date(ms).toISOString();
}
