/**
 * What the ten checks read, taken out of the bundle once. Attacker assumption: the bundle is arbitrary JSON (parts
 * missing, swapped, of another decision, throwing getters). Nothing here throws; a member that is not what it should
 * be reads as undefined and the checks that need it fail naming it.
 * The decision's facts are taken from the evidence pack (whose signature and audit entry bind them to the write-once
 * chain); the bundle's other parts are checked against them.
 */
import { isRecord, ownValue } from '../decide/guards.ts';
import type { GrantSnapshot } from '../decide/types.ts';
import { verifyDelegationChain, type VerifyDelegationChainResult } from '../delegation/verify-delegation-chain.ts';
import type { TrustedKeys } from '../signing/verify-document.ts';

export interface BundleContext {
  bundle: unknown;
  jwks: TrustedKeys;
  part(name: string): unknown;
  pack: Record<string, unknown> | undefined;
  /** the pack's `now`: the instant the decision was made */
  decidedAt: string | undefined;
  /** the grant ids of the chain that decided (root first); [] when the decision read no grant; undefined: unreadable */
  decidingChain: string[] | undefined;
  /** verifyDelegationChain at decision time, when the bundle carries a chain */
  chain: VerifyDelegationChainResult | undefined;
}

export async function readBundleContext(bundle: unknown, jwks: TrustedKeys): Promise<BundleContext> {
  const part = (name: string): unknown => {
    try {
      return ownValue(bundle, name);
    } catch {
      return undefined;
    }
  };
  const packValue = part('evidence_pack');
  const pack = isRecord(packValue) ? packValue : undefined;
  const now = ownValue(pack, 'now');
  const decidedAt = typeof now === 'string' ? now : undefined;
  const chainDoc = part('delegation_chain');
  const chain =
    isRecord(chainDoc) && decidedAt !== undefined ? await verifyDelegationChain(chainDoc, jwks, decidedAt) : undefined;
  return { bundle, jwks, part, pack, decidedAt, decidingChain: decidingChainOf(pack), chain };
}

/**
 * The grant ids (root first) of the chain that decided, read from an evidence pack: the one whose leaf the decision
 * names (`diagnostics.grant_id`) among the snapshot's `grants` and `alternatives`; `[]` when no grant was read.
 */
export function decidingChainOf(pack: Record<string, unknown> | undefined): string[] | undefined {
  const snapshot = ownValue(pack, 'snapshot');
  const grants = ownValue(snapshot, 'grants');
  if (!Array.isArray(grants)) return undefined;
  const alternatives = ownValue(snapshot, 'alternatives');
  const chains = [grants, ...(Array.isArray(alternatives) ? alternatives : [])] as unknown[];
  const leaf = ownValue(ownValue(ownValue(pack, 'decision'), 'diagnostics'), 'grant_id');
  const ids = (chain: unknown) =>
    Array.isArray(chain) ? chain.map((g) => (isRecord(g) ? (g as Partial<GrantSnapshot>).grant_id : undefined)) : [];
  if (leaf === undefined) return grants.length === 0 ? [] : (ids(grants) as string[]);
  const found = chains.map(ids).find((c) => c.length > 0 && c[c.length - 1] === leaf);
  return found && found.every((id) => typeof id === 'string') ? (found as string[]) : undefined;
}
