/**
 * Recomputes a served trust score from the inputs its own components carry, so a consumer (SDK, console, auditor)
 * can check that the score follows from them: equal canonical JSON means the served score is what the published
 * method gives for those inputs. Attacker assumption: `served` is any JSON a peer sent; a shape that does not carry
 * the five components' inputs is refused (`invalid_request`), never guessed at.
 */
import { AarError } from '../errors/aar-error.ts';
import type { ConnectorRisk } from '../connectors/connector-manifest.ts';
import { computeTrustScore, type TrustScore } from './compute-trust-score.ts';
import type { PublisherTier, TrustScoreInputs } from './trust-score-inputs.ts';

type Inputs = Record<string, unknown>;

export function recomputeTrustScore(served: Pick<TrustScore, 'components' | 'computed_at'>): TrustScore {
  const by = new Map<string, Inputs>();
  for (const c of Array.isArray(served?.components) ? served.components : []) {
    if (typeof c === 'object' && c !== null && typeof c.inputs === 'object' && c.inputs !== null) {
      by.set(c.name, c.inputs);
    }
  }
  const get = (name: string): Inputs => {
    const inputs = by.get(name);
    if (!inputs) throw new AarError('invalid_request', `trust score has no \`${name}\` component inputs`);
    return inputs;
  };
  const conformance = get('conformance');
  const security = get('security_posture');
  const operations = get('operational_record');
  const evidence = get('evidence_freshness');
  const inputs: TrustScoreInputs = {
    as_of: served.computed_at,
    conformance: {
      report:
        typeof conformance.report_id === 'string'
          ? {
              report_id: conformance.report_id,
              passed: conformance.passed as number,
              failed: conformance.failed as number,
              finished_at: evidence.latest_at as string,
            }
          : null,
      declared_profiles: conformance.declared_profiles as number,
    },
    security:
      security.manifest === true
        ? ({
            risk_level: security.risk_level,
            side_effect_level: security.side_effect_level,
            requires_signature_verification: security.requires_signature_verification,
            requires_idempotency: security.requires_idempotency,
            requires_audit_event: security.requires_audit_event,
          } as ConnectorRisk)
        : null,
    publisher_tier: get('publisher_tier').tier as PublisherTier,
    operations: {
      succeeded: operations.succeeded as number,
      failed: operations.failed as number,
      window_days: operations.window_days as number,
    },
    evidence: {
      latest_at: evidence.latest_at as string,
      source: evidence.source as TrustScoreInputs['evidence']['source'],
    },
  };
  return computeTrustScore(inputs);
}
