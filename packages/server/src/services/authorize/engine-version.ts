/**
 * Recorded with every decision and in evidence: which decide produced it. Bump when decide's behaviour changes.
 * 1.2.0: several covering chains (`snapshot.alternatives`, the most permissive outcome kept); a deny binds no basket.
 * Replay accepts every earlier version (core evidence/replay-decision.ts).
 */
export const ENGINE_VERSION = 'aar-decide/1.2.0';
