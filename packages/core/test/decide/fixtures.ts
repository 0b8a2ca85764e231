/** Base cases for unit and property tests, taken from the vectors so that tests and vectors share one baseline. */
import { readFileSync } from 'node:fs';
import type { DecisionRequest, DecisionSnapshot } from '../../src/decide/index.ts';
import { VECTORS_DIR } from './load-vectors.ts';

export interface DecisionInput {
  request: DecisionRequest;
  snapshot: DecisionSnapshot;
  now: string;
}

function loadInput(file: string): DecisionInput {
  return (JSON.parse(readFileSync(VECTORS_DIR + file, 'utf8')) as { input: DecisionInput }).input;
}

/** execute 42.50 EUR under one root grant (150.00 per purchase, 500.00 per day, approval above 100.00) */
export function eurRootCase(): DecisionInput {
  return loadInput('allow-execute-eur-root-grant.json');
}

/** execute 12.345 BHD through a 3-link chain */
export function bhdChainCase(): DecisionInput {
  return loadInput('allow-execute-bhd-3-link-chain.json');
}

/** execute 30000 JPY against a 30000 JPY per-purchase limit */
export function jpyCase(): DecisionInput {
  return loadInput('allow-execute-jpy-amount-equals-limit.json');
}

export const NOW = '2026-04-15T10:00:00Z';
export const NOW_SECONDS = 1776247200;

/** The grant at `index` (negative counts from the leaf), asserting it exists. */
export function grantAt(input: DecisionInput, index: number) {
  const grant = input.snapshot.grants.at(index);
  if (!grant) throw new Error(`no grant at ${index}`);
  return grant;
}
