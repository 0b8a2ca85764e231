import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DecisionRequest, DecisionSnapshot, MinorMoney } from '../../src/decide/index.ts';

export const VECTORS_DIR = fileURLToPath(new URL('../../../../vectors/decisions/', import.meta.url));

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

export function loadDecisionVectors(): DecisionVector[] {
  return readdirSync(VECTORS_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      ...(JSON.parse(readFileSync(VECTORS_DIR + file, 'utf8')) as Omit<DecisionVector, 'file'>),
    }));
}
