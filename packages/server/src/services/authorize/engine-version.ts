/** Recorded with every decision and in evidence: which decide produced it. Bump when decide's behaviour changes. */
export const ENGINE_VERSION = 'aar-decide/1.1.0';
