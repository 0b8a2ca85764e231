/**
 * The evidence pack's `mandates` check (issue 29, DESIGN-29 section 8): a decision made under a mandate or an
 * allowance proves what the principal signed, offline.
 * - Every `mandate` binding of the snapshot's chains (`grants` and each of `alternatives`) has its entry in the pack's
 *   `mandates` (same `mandate_id`, `format`, `digest`), else `mandate_missing`. The bindings are in the decision
 *   record the audit entry commits to, so an entry cannot be swapped for another document.
 * - Every entry's `digest` is the hash of its `document` (mandateDigest), else `mandate_digest_mismatch`.
 * - AP2: the document verifies (core verifyAp2Presentation: the issuer's signature against the entry's
 *   `issuer_jwks`, every disclosure digest, each `sd_hash`, each key-binding signature against the disclosed `cnf`),
 *   time not checked (a pack is read long after the purchase) and the audience not either (the verifier does not know
 *   the deployment's); `presented`, the closed presentation of the purchase, must extend the document
 *   (`document` + '~' + its closing hop) and verify the same way. Else `mandate_signature_invalid`.
 * - A malformed `mandates` member or binding: `malformed_mandates`.
 * Recorded only when the snapshot carries a binding or the pack a `mandates` member (older packs: not at all).
 * The same rules as the Python (aar_sdk/mandates.py) and Go SDKs' verifiers.
 * Attacker assumption: the pack is anything at all; nothing throws out of here (the caller guards as well). The
 * `issuer_jwks` come from the pack, which the service signed: they are the keys it trusted when it accepted the
 * mandate, bound to the document by the signed pack (the document's own claims never name a trusted key).
 */
import { isRecord } from '../decide/guards.ts';
import { mandateDigest } from '../mandates/mandate-digest.ts';
import type { Ap2TrustedIssuer } from '../mandates/mandate-types.ts';
import { verifyAp2Presentation } from '../mandates/ap2-verify.ts';

export type MandatesOutcome =
  true | 'malformed_mandates' | 'mandate_missing' | 'mandate_digest_mismatch' | 'mandate_signature_invalid';

interface Entry {
  mandate_id: string;
  format: 'ap2' | 'acp';
  digest: string;
  document: string;
  issuer?: unknown;
  issuer_jwks?: unknown;
  presented?: string;
}

/** undefined when neither the snapshot nor the pack carries a mandate (the check is then not recorded). */
export async function checkPackMandates(pack: unknown): Promise<MandatesOutcome | undefined> {
  if (!isRecord(pack)) return undefined;
  const bindings = snapshotBindings(pack.snapshot);
  const hasMember = Object.hasOwn(pack, 'mandates');
  if (bindings.length === 0 && !hasMember) return undefined;
  const entries = entriesOf(hasMember ? pack.mandates : []);
  if (!entries) return 'malformed_mandates';
  for (const binding of bindings) {
    if (!isRecord(binding) || typeof binding.mandate_id !== 'string') return 'malformed_mandates';
    const found = entries.some(
      (e) => e.mandate_id === binding.mandate_id && e.format === binding.format && e.digest === binding.digest,
    );
    if (!found) return 'mandate_missing';
  }
  for (const entry of entries) {
    const outcome = await checkEntry(entry);
    if (outcome !== true) return outcome;
  }
  return true;
}

/** Every `mandate` binding of the snapshot's chains. */
function snapshotBindings(snapshot: unknown): unknown[] {
  if (!isRecord(snapshot)) return [];
  const chains: unknown[] = [snapshot.grants, ...(Array.isArray(snapshot.alternatives) ? snapshot.alternatives : [])];
  const out: unknown[] = [];
  for (const chain of chains) {
    if (!Array.isArray(chain)) continue;
    for (const grant of chain) if (isRecord(grant) && Object.hasOwn(grant, 'mandate')) out.push(grant.mandate);
  }
  return out;
}

function entriesOf(value: unknown): Entry[] | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const entry of value) {
    if (!isRecord(entry)) return undefined;
    if (!['mandate_id', 'format', 'digest', 'document'].every((k) => typeof entry[k] === 'string')) return undefined;
    if (entry.format !== 'ap2' && entry.format !== 'acp') return undefined;
    if (Object.hasOwn(entry, 'presented') && typeof entry.presented !== 'string') return undefined;
  }
  return value as Entry[];
}

async function checkEntry(entry: Entry): Promise<MandatesOutcome> {
  if (mandateDigest(entry.document) !== entry.digest) return 'mandate_digest_mismatch';
  if (entry.format === 'acp') return true;
  const texts = [entry.document];
  if (entry.presented !== undefined) {
    if (!entry.presented.startsWith(`${entry.document}~`)) return 'mandate_signature_invalid';
    texts.push(entry.presented);
  }
  const issuers: Ap2TrustedIssuer[] = [
    { issuer: typeof entry.issuer === 'string' ? entry.issuer : '', keys: keysOf(entry.issuer_jwks) },
  ];
  for (const text of texts) {
    // the audience is the deployment's, which an offline verifier does not know; everything else must hold
    const result = await verifyAp2Presentation(text, {
      issuers,
      nowSeconds: 0,
      audiences: [],
      checkTime: false,
      checkAudience: false,
    });
    if (!result.ok) return 'mandate_signature_invalid';
  }
  return true;
}

function keysOf(jwks: unknown): Ap2TrustedIssuer['keys'] {
  const keys = isRecord(jwks) ? jwks.keys : undefined;
  return Array.isArray(keys) ? (keys.filter(isRecord) as Ap2TrustedIssuer['keys']) : [];
}
