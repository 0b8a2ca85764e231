/**
 * The trust score of a marketplace listing: a pure, deterministic function of its inputs, integers only, so that a
 * reader can recompute it by hand from the components it carries (docs/marketplace.md gives the formula).
 *   score = floor( Σ weight_i × value_i / 100 ),  Σ weight_i = 100,  every value_i an integer in 0..100
 * Every division is an integer division rounding down (floor) of non-negative integers. Each component is monotone
 * in each of its inputs (more passed fixtures, more controls, a higher tier, more successful deliveries, fresher
 * evidence never lower the score; more failures never raise it), and so is the score.
 * No clock: `as_of` is an input, and it is the score's `computed_at`.
 */
import { AarError } from '../errors/aar-error.ts';
import type { PublisherTier, TrustScoreInputs } from './trust-score-inputs.ts';

export const TRUST_SCORE_METHOD_VERSION = 'aar-trust-score-1';

export interface TrustScoreComponent {
  name: 'conformance' | 'security_posture' | 'publisher_tier' | 'operational_record' | 'evidence_freshness';
  weight: number;
  value: number;
  inputs: Record<string, unknown>;
  explanation: string;
}

export interface TrustScore {
  score: number;
  components: TrustScoreComponent[];
  computed_at: string;
  method_version: string;
}

export const TRUST_SCORE_WEIGHTS = {
  conformance: 30,
  security_posture: 25,
  publisher_tier: 15,
  operational_record: 20,
  evidence_freshness: 10,
} as const;

/** A self-declared profile is worth 10 points, at most 50: declaring is not passing. */
export const DECLARED_PROFILE_POINTS = 10;
export const DECLARED_PROFILES_CAP = 50;
export const CONTROL_POINTS = {
  requires_signature_verification: 35,
  requires_idempotency: 35,
  requires_audit_event: 30,
} as const;
export const TIER_VALUES: Readonly<Record<PublisherTier, number>> = { community: 20, verified: 70, certified: 100 };
/** evidence loses 100 points over this many whole days, linearly */
export const FRESHNESS_DAYS = 365;
const DAY_MS = 86_400_000;

const div = (a: number, b: number): number => Math.floor(a / b);

export function computeTrustScore(inputs: TrustScoreInputs): TrustScore {
  const components = [
    conformance(inputs.conformance),
    securityPosture(inputs.security),
    publisherTier(inputs.publisher_tier),
    operationalRecord(inputs.operations),
    evidenceFreshness(inputs.evidence, inputs.as_of),
  ];
  const total = components.reduce((sum, c) => sum + c.weight * c.value, 0);
  return {
    score: div(total, 100),
    components,
    computed_at: inputs.as_of,
    method_version: TRUST_SCORE_METHOD_VERSION,
  };
}

function conformance(c: TrustScoreInputs['conformance']): TrustScoreComponent {
  const weight = TRUST_SCORE_WEIGHTS.conformance;
  if (c.report !== null) {
    const passed = nonNegative(c.report.passed);
    const failed = nonNegative(c.report.failed);
    const ran = passed + failed;
    const value = ran === 0 ? 0 : div(100 * passed, ran);
    return {
      name: 'conformance',
      weight,
      value,
      inputs: { report_id: c.report.report_id, passed, failed, declared_profiles: nonNegative(c.declared_profiles) },
      explanation: `conformance report: ${passed} of ${ran} fixtures passed`,
    };
  }
  const declared = nonNegative(c.declared_profiles);
  const value = Math.min(DECLARED_PROFILES_CAP, DECLARED_PROFILE_POINTS * declared);
  return {
    name: 'conformance',
    weight,
    value,
    inputs: { report_id: null, passed: 0, failed: 0, declared_profiles: declared },
    explanation: `no conformance report: ${declared} self-declared profiles, ${DECLARED_PROFILE_POINTS} points each up to ${DECLARED_PROFILES_CAP}`,
  };
}

function securityPosture(risk: TrustScoreInputs['security']): TrustScoreComponent {
  const weight = TRUST_SCORE_WEIGHTS.security_posture;
  if (risk === null) {
    return {
      name: 'security_posture',
      weight,
      value: 0,
      inputs: { manifest: false },
      explanation: 'no connector manifest: no declared controls',
    };
  }
  const flags = ['requires_signature_verification', 'requires_idempotency', 'requires_audit_event'] as const;
  const held = flags.filter((f) => risk[f] === true);
  const value = held.reduce((sum, f) => sum + CONTROL_POINTS[f], 0);
  return {
    name: 'security_posture',
    weight,
    value,
    inputs: {
      manifest: true,
      risk_level: risk.risk_level,
      side_effect_level: risk.side_effect_level,
      requires_signature_verification: risk.requires_signature_verification,
      requires_idempotency: risk.requires_idempotency,
      requires_audit_event: risk.requires_audit_event,
    },
    explanation: `manifest controls: ${held.length === 0 ? 'none' : held.join(', ')} (${risk.side_effect_level}, ${risk.risk_level} risk)`,
  };
}

function publisherTier(tier: PublisherTier): TrustScoreComponent {
  const value = TIER_VALUES[tier];
  if (value === undefined) throw new AarError('invalid_request', `unknown publisher tier \`${String(tier)}\``);
  return {
    name: 'publisher_tier',
    weight: TRUST_SCORE_WEIGHTS.publisher_tier,
    value,
    inputs: { tier },
    explanation: `publisher tier ${tier}`,
  };
}

/** Laplace's rule of succession: no record is 50, one success is not yet 100. */
function operationalRecord(o: TrustScoreInputs['operations']): TrustScoreComponent {
  const succeeded = nonNegative(o.succeeded);
  const failed = nonNegative(o.failed);
  const value = div(100 * (succeeded + 1), succeeded + failed + 2);
  return {
    name: 'operational_record',
    weight: TRUST_SCORE_WEIGHTS.operational_record,
    value,
    inputs: { succeeded, failed, window_days: o.window_days },
    explanation:
      succeeded + failed === 0
        ? `no webhook deliveries in the last ${o.window_days} days: neutral`
        : `${succeeded} of ${succeeded + failed} webhook deliveries succeeded in the last ${o.window_days} days`,
  };
}

function evidenceFreshness(e: TrustScoreInputs['evidence'], asOf: string): TrustScoreComponent {
  const ms = Date.parse(asOf) - Date.parse(e.latest_at);
  if (!Number.isFinite(ms)) throw new AarError('invalid_request', 'evidence and as_of must be timestamps');
  const ageDays = Math.max(0, div(ms, DAY_MS));
  const value = Math.max(0, 100 - div(100 * ageDays, FRESHNESS_DAYS));
  return {
    name: 'evidence_freshness',
    weight: TRUST_SCORE_WEIGHTS.evidence_freshness,
    value,
    inputs: { latest_at: e.latest_at, source: e.source, age_days: ageDays },
    explanation: `newest evidence (${e.source.replace('_', ' ')}) is ${ageDays} days old; ${FRESHNESS_DAYS} days or more is 0`,
  };
}

/** A count as the score reads it: a non-negative safe integer, or the computation refuses. */
function nonNegative(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new AarError('invalid_request', `a count must be a non-negative integer, not \`${n}\``);
  }
  return n;
}
