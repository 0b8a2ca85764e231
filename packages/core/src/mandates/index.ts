export * from './mandate-types.ts';
export * from './mandate-digest.ts';
export { MAX_NESTING as AP2_MAX_NESTING } from './ap2-disclosures.ts';
export { MAX_HOPS as AP2_MAX_HOPS } from './ap2-hop.ts';
export { ALLOWED_ALGS as AP2_ALLOWED_ALGS } from './ap2-signatures.ts';
export { verifyAp2Presentation, DEFAULT_MAX_PRESENTATION_BYTES, MAX_FUTURE_SKEW_SECONDS } from './ap2-verify.ts';
export * from './ap2-scope.ts';
export * from './acp-allowance.ts';
export * from './mandate-card-numbers.ts';
