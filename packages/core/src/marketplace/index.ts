// Marketplace listings (CONTRACT section 15): the trust score, a pure function an SDK or the browser can rerun.
export {
  computeTrustScore,
  CONTROL_POINTS,
  DECLARED_PROFILE_POINTS,
  DECLARED_PROFILES_CAP,
  FRESHNESS_DAYS,
  TIER_VALUES,
  TRUST_SCORE_METHOD_VERSION,
  TRUST_SCORE_WEIGHTS,
  type TrustScore,
  type TrustScoreComponent,
} from './compute-trust-score.ts';
export { PUBLISHER_TIERS, type PublisherTier, type TrustScoreInputs } from './trust-score-inputs.ts';
export { recomputeTrustScore } from './recompute-trust-score.ts';
