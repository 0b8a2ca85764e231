/**
 * The audit chain: the server's full verification (GET /v1/audit/verify), the latest signed checkpoint with its
 * signature checked in this browser against the JWKS, and an inclusion proof of any entry checked in this browser
 * (leaf hash recomputed from the entry's bytes, RFC 9162 path folded to the checkpoint's root) with core's code.
 */
import { useState } from 'preact/hooks';
import {
  encodeBase64,
  leafHash,
  utf8Encode,
  verifyDocument,
  verifyInclusionProofJson,
  type Jwks,
  type VerifyDocumentResult,
} from '@aar/core';
import { formatTime } from '../parts/format.ts';
import { ErrorMessage, LoadState } from '../parts/load-state.tsx';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Checkpoint {
  origin: string;
  size: number;
  root_hash: string;
  timestamp: string;
  signature: { key_id: string };
}

interface Verification {
  valid: boolean;
  size: number;
  checked: number;
  failure?: string;
  first_invalid_index?: number;
  detail?: string;
}

interface ProofCheck {
  index: number;
  auditId: string;
  leafMatches: boolean;
  proofValid: boolean;
  failure?: string;
  size: number;
}

export function AuditPage() {
  const session = useSession();
  const checkpoint = useApi(async () => {
    const [cp, jwks] = await Promise.all([
      session.api.get<Checkpoint>('/v1/audit/checkpoint'),
      session.api.get<Jwks>('/.well-known/jwks.json'),
    ]);
    return { cp, signature: await verifyDocument(cp, jwks) };
  }, []);
  const [verification, setVerification] = useState<Verification | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Audit chain</h1>
      {error && <ErrorMessage error={error} />}
      <div class="grid-2">
        <section class="card" aria-labelledby="verify-heading">
          <h2 id="verify-heading">Whole-chain verification</h2>
          <p class="muted">
            The server recomputes the hash chain and the Merkle tree from every stored entry, and checks each record
            against its entry.
          </p>
          <div class="actions">
            <button
              type="button"
              disabled={busy}
              onClick={() => run(async () => setVerification(await session.api.get<Verification>('/v1/audit/verify')))}
            >
              Verify the chain
            </button>
          </div>
          {verification && (
            <p role="status" data-testid="chain-verification" class={verification.valid ? 'ok-text' : 'fail-text'}>
              {verification.valid
                ? `Valid: ${verification.checked} entries checked, log size ${verification.size}.`
                : `Not valid at entry ${verification.first_invalid_index ?? '?'}: ${verification.failure ?? ''} ${verification.detail ?? ''}`}
            </p>
          )}
        </section>
        <section class="card" aria-labelledby="checkpoint-heading">
          <h2 id="checkpoint-heading">Latest checkpoint</h2>
          <LoadState loaded={checkpoint}>
            {({ cp, signature }) => <CheckpointFacts cp={cp} signature={signature} />}
          </LoadState>
          {session.role === 'admin' && (
            <div class="actions">
              <button
                type="button"
                class="secondary"
                disabled={busy}
                onClick={() =>
                  run(async () => {
                    await session.api.post('/v1/audit/checkpoint');
                    checkpoint.reload();
                  })
                }
              >
                Sign a checkpoint now
              </button>
            </div>
          )}
        </section>
      </div>
      {checkpoint.data && <InclusionProof checkpoint={checkpoint.data.cp} />}
    </>
  );
}

function CheckpointFacts({ cp, signature }: { cp: Checkpoint; signature: VerifyDocumentResult }) {
  return (
    <dl class="facts">
      <dt>Log</dt>
      <dd>
        <code>{cp.origin}</code>
      </dd>
      <dt>Size</dt>
      <dd>{cp.size} entries</dd>
      <dt>Root hash</dt>
      <dd>
        <code>{cp.root_hash}</code>
      </dd>
      <dt>Signed at</dt>
      <dd>{formatTime(cp.timestamp)}</dd>
      <dt>Signature</dt>
      <dd data-testid="checkpoint-signature" class={signature.valid ? 'ok-text' : 'fail-text'}>
        {signature.valid ? 'verified in this browser' : `does not verify (${signature.failure ?? 'unknown'})`} with{' '}
        <code>{cp.signature.key_id}</code>
      </dd>
    </dl>
  );
}

function InclusionProof({ checkpoint }: { checkpoint: Checkpoint }) {
  const { api } = useSession();
  const [index, setIndex] = useState(String(Math.max(0, checkpoint.size - 1)));
  const [check, setCheck] = useState<ProofCheck | undefined>();
  const [error, setError] = useState<Error | undefined>();

  const prove = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setCheck(undefined);
    try {
      if (!/^\d{1,15}$/.test(index.trim())) throw new Error('the index is a whole number');
      const i = index.trim();
      const entry = await api.get<{ index: number; audit_id: string; entry: string }>(`/v1/audit/entries/${i}`);
      const proof = await api.get<{ leaf_hash: string }>('/v1/audit/proofs/inclusion', {
        index: i,
        size: String(checkpoint.size),
      });
      // recomputed here from the entry's exact bytes: the server's leaf_hash is not taken on trust
      const leafMatches = encodeBase64(leafHash(utf8Encode(entry.entry))) === proof.leaf_hash;
      const result = verifyInclusionProofJson(proof, checkpoint.root_hash);
      setCheck({
        index: entry.index,
        auditId: entry.audit_id,
        leafMatches,
        proofValid: result.valid,
        ...(result.valid ? {} : { failure: result.failure }),
        size: checkpoint.size,
      });
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    }
  };

  return (
    <section class="card" aria-labelledby="inclusion-heading">
      <h2 id="inclusion-heading">Inclusion proof, checked in this browser</h2>
      <form class="search-form" onSubmit={prove}>
        <div class="field">
          <label for="leaf-index">Entry index (0 to {checkpoint.size - 1})</label>
          <input
            id="leaf-index"
            type="text"
            inputMode="numeric"
            value={index}
            onInput={(e) => setIndex((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={checkpoint.size === 0}>
            Prove inclusion
          </button>
        </div>
      </form>
      {error && <ErrorMessage error={error} />}
      {check && (
        <p
          role="status"
          data-testid="inclusion-result"
          class={check.leafMatches && check.proofValid ? 'ok-text' : 'fail-text'}
        >
          {check.leafMatches && check.proofValid
            ? `Entry ${check.index} (${check.auditId}) is in the log of ${check.size} entries under the signed root.`
            : `Entry ${check.index} is NOT proven: ${check.leafMatches ? '' : 'leaf hash differs; '}${check.failure ?? ''}`}
        </p>
      )}
    </section>
  );
}
