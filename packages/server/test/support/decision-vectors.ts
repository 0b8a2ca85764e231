/**
 * The decision vectors of /vectors/decisions (format in that folder's README), read for the HTTP walk of
 * POST /v1/runtime/authorize. Core's own loader lives in core's tests; this one keeps the server suite self-contained.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DecisionRequest, DecisionSnapshot, MinorMoney } from '@aar/core';

export const DECISION_VECTORS_DIR = fileURLToPath(new URL('../../../../vectors/decisions/', import.meta.url));

export interface DecisionVector {
  file: string;
  desc: string;
  input: { request: DecisionRequest; snapshot: DecisionSnapshot; now: string };
  want: {
    decision: string;
    reason: string;
    obligations?: unknown[];
    stop_conditions?: string[];
    /** null: the result must carry no reservation */
    reservation?: { amount: MinorMoney; grant_ids: string[] } | null;
  };
}

export function loadDecisionVectors(dir = DECISION_VECTORS_DIR): DecisionVector[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      ...(JSON.parse(readFileSync(dir + file, 'utf8')) as Omit<DecisionVector, 'file'>),
    }));
}
