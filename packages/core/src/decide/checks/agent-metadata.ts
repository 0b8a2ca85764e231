/**
 * aar-decide/1.5.0, part of step 2 (the actor): a request that presents `agent_metadata` must present exactly what
 * the agent attested with its own key (`snapshot.agent_metadata`, loaded by the server from the agent's latest
 * attestation). Presented but nothing attested, malformed on either side, or any field different:
 * `agent_metadata_mismatch` (deny). A request without `agent_metadata` is not judged here, so every snapshot and
 * request of an earlier version decides as before.
 * The same detail strings in the Python and Go ports (sdks/python/aar_sdk/decide/checks.py, sdks/go/decide_checks.go).
 */
import { isRecord } from '../guards.ts';
import type { DecisionRequest, DecisionSnapshot } from '../types.ts';
import { fail, quote, type CheckVerdict } from './check-context.ts';

const FIELDS = ['model', 'software_version', 'operator'] as const;

/** undefined when the request presents no metadata or it equals the attested one; else the failing verdict. */
export function checkAgentMetadata(request: DecisionRequest, snapshot: DecisionSnapshot): CheckVerdict | undefined {
  if (!Object.hasOwn(request, 'agent_metadata')) return undefined;
  const presented: unknown = request.agent_metadata;
  if (!isRecord(presented) || !FIELDS.every((f) => typeof presented[f] === 'string')) {
    return fail('agent_metadata_mismatch', 'presented agent metadata is malformed');
  }
  const attested: unknown = Object.hasOwn(snapshot, 'agent_metadata') ? snapshot.agent_metadata : undefined;
  if (!isRecord(attested)) return fail('agent_metadata_mismatch', 'agent metadata presented but none attested');
  for (const field of FIELDS) {
    if (typeof attested[field] !== 'string')
      return fail('agent_metadata_mismatch', 'attested agent metadata is malformed');
    if (presented[field] !== attested[field]) {
      return fail(
        'agent_metadata_mismatch',
        `agent metadata ${field} ${quote(presented[field])} is not the attested one`,
      );
    }
  }
  return undefined;
}
