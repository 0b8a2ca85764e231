/**
 * A complete, genuine evidence pack made in-process with core alone, for the verifier's unit tests: the decision
 * (decide on the EUR vector), its signed map, the decision record committed by an audit entry among filler entries,
 * the inclusion proof and a signed checkpoint. Options let a test sign with another key or use another origin.
 */
import {
  AUDIT_ENTRY_SCHEMA,
  EVIDENCE_PACK_SCHEMA,
  auditRecordDigest,
  buildDecisionMap,
  buildDecisionRecord,
  canonicalJson,
  createWebCryptoSigner,
  decide,
  encodeBase64,
  inclusionProof,
  inclusionProofToJson,
  leafHash,
  rootFromLeafHashes,
  signDocument,
  toEd25519PublicJwk,
  utf8Encode,
  type DecisionRequest,
  type DecisionSnapshot,
  type DocumentSigner,
  type EvidencePack,
  type Jwks,
} from '../../src/index.ts';
import { eurRootCase } from '../decide/fixtures.ts';

export const ORIGIN = 'aar.test/audit';

export async function generateKey(keyId: string): Promise<{ signer: DocumentSigner; jwks: Jwks }> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return {
    signer: createWebCryptoSigner(keyId, pair.privateKey),
    jwks: { keys: [toEd25519PublicJwk(raw, { kid: keyId })] },
  };
}

export interface BuildPackOptions {
  signer: DocumentSigner;
  origin?: string;
  /** entries before and after the decision's entry */
  before?: number;
  after?: number;
  /** the decision's input (default: eurRootCase) */
  input?: { request: DecisionRequest; snapshot: DecisionSnapshot; now: string };
}

export interface BuiltPack {
  pack: EvidencePack;
  /** every leaf's bytes, the decision's at `index` */
  entries: string[];
  index: number;
}

export async function buildPack(options: BuildPackOptions): Promise<BuiltPack> {
  const { request, snapshot, now } = options.input ?? eurRootCase();
  const result = decide(request, snapshot, now);
  const ids = {
    policy_decision_id: 'ns:decision:01900000-0000-7000-8000-000000000001',
    decision_map_id: 'ns:decision_map:01900000-0000-7000-8000-000000000002',
    audit_ref: 'ns:audit:01900000-0000-7000-8000-000000000003',
    evidence_pack_id: 'ns:evidence-pack:01900000-0000-7000-8000-000000000004',
  };
  const map = await signDocument(
    buildDecisionMap({
      decision_map_id: ids.decision_map_id,
      policy_decision_id: ids.policy_decision_id,
      audit_ref: ids.audit_ref,
      evidence_refs: [ids.evidence_pack_id],
      issued_at: now,
      request,
      snapshot,
      result,
    }),
    options.signer,
  );
  const record = buildDecisionRecord({
    policy_decision_id: ids.policy_decision_id,
    request,
    snapshot,
    now,
    result,
    engine_version: 'aar-decide/1.0.0',
    decision_map: map,
  });
  const before = options.before ?? 5;
  const after = options.after ?? 3;
  const entries: string[] = [];
  const leaves: Uint8Array[] = [];
  for (let i = 0; i < before + 1 + after; i++) {
    const isDecision = i === before;
    const text = canonicalJson({
      schema_version: AUDIT_ENTRY_SCHEMA,
      audit_id: isDecision ? ids.audit_ref : `ns:audit:01900000-0000-7000-8000-1000000000${String(i).padStart(2, '0')}`,
      index: i,
      occurred_at: now,
      kind: isDecision ? 'ns.purchase_authority.allowed' : 'ns.entity.created',
      subject_ref: isDecision ? ids.policy_decision_id : `ns:commitment:filler${i}`,
      record_digest: isDecision ? auditRecordDigest(record) : auditRecordDigest({ filler: i }),
      prev_leaf_hash: i === 0 ? '' : encodeBase64(leaves[i - 1] as Uint8Array),
    });
    entries.push(text);
    leaves.push(leafHash(utf8Encode(text)));
  }
  const size = leaves.length;
  const checkpoint = await signDocument(
    {
      origin: options.origin ?? ORIGIN,
      size,
      root_hash: encodeBase64(rootFromLeafHashes(leaves)),
      timestamp: '2026-04-15T10:00:05Z',
    },
    options.signer,
  );
  const pack = (await signDocument(
    {
      schema_version: EVIDENCE_PACK_SCHEMA,
      evidence_pack_id: ids.evidence_pack_id,
      policy_decision_id: ids.policy_decision_id,
      issued_at: '2026-04-15T10:00:06Z',
      issuer: 'https://aar.test',
      decision: record.result,
      decision_map: record.decision_map,
      request: record.request,
      snapshot: record.snapshot,
      now,
      engine_version: record.engine_version,
      audit_entry: entries[before] as string,
      inclusion_proof: inclusionProofToJson(
        before,
        size,
        leaves[before] as Uint8Array,
        inclusionProof(leaves, before, size),
      ),
      checkpoint,
    },
    options.signer,
  )) as unknown as EvidencePack;
  return { pack, entries, index: before };
}
