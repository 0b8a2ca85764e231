/**
 * An evidence pack verified in this browser: core's own `verifyEvidencePack` (WebCrypto Ed25519, RFC 9162 proofs,
 * decide replayed) against the JWKS this service publishes, never a key the pack names. Each check is shown with its
 * failure code. The pack's JSON can be edited and verified again, so anyone can see that a changed pack fails.
 * Attacker assumption: the pasted text is anything at all; it is parsed strictly and verified, never trusted.
 */
import { useEffect, useState } from 'preact/hooks';
import { verifyEvidencePack, type EvidenceCheckName, type EvidenceVerificationResult, type Jwks } from '@aar/core';
import { DecisionBadge } from '../../shared/decision-badge.tsx';
import { ErrorMessage } from '../parts/load-state.tsx';
import { href } from '../router.ts';
import { may, useSession } from '../session.tsx';

const CHECK_TEXT: Record<EvidenceCheckName, string> = {
  pack_signature: "The pack's signature verifies with a published key",
  decision_map_signature: "The decision map's signature verifies",
  bindings: 'The map and the pack name the same decision and pack',
  audit_entry: 'The audit entry is the leaf the proof is about, and names the map',
  record_digest: 'The audit entry commits to exactly this decision record',
  inclusion_proof: "The entry is in the audit log at the checkpoint's size",
  checkpoint: 'The checkpoint is signed by a published key, of this log',
  policy_set: "Each rule pack in the snapshot is signed by the service and is the one the map's policy node names",
  mandates:
    "Each AP2 mandate or ACP allowance behind the snapshot's grants is carried, matches its digest, and its signatures verify",
  agent_metadata:
    "The agent's metadata attestation is carried, matches the digest the snapshot and the map's actor node name, and is signed by the agent's key in the snapshot",
  replay: 'Replaying the decision on its snapshot gives the recorded decision',
};

export function EvidencePage({ id }: { id: string | undefined }) {
  const session = useSession();
  const [packId, setPackId] = useState(id ?? '');
  const [text, setText] = useState('');
  const [result, setResult] = useState<EvidenceVerificationResult | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const verify = async (packText: string) => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      if (!globalThis.crypto?.subtle) throw new Error('this page needs a secure context (HTTPS) for WebCrypto');
      let pack: unknown;
      try {
        pack = JSON.parse(packText);
      } catch {
        throw new Error('the pack is not valid JSON');
      }
      const jwks = await session.api.get<Jwks>('/.well-known/jwks.json');
      // the log this service keeps: a checkpoint of another log proves nothing here (auditors and admins may read it)
      const origin = may(session, 'auditor')
        ? (await session.api.get<{ origin: string }>('/v1/audit/checkpoint')).origin
        : undefined;
      setResult(await verifyEvidencePack(pack, jwks, origin === undefined ? {} : { origin }));
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };

  const fetchAndVerify = async (wanted: string) => {
    setError(undefined);
    try {
      const pack = await session.api.get<unknown>(`/v1/evidence-packs/${encodeURIComponent(wanted.trim())}`);
      const packText = JSON.stringify(pack, null, 2);
      setText(packText);
      await verify(packText);
    } catch (err) {
      setResult(undefined);
      setError(err instanceof Error ? err : new Error(String(err)));
    }
  };

  useEffect(() => {
    if (id) {
      setPackId(id);
      void fetchAndVerify(id);
    }
  }, [id]);

  return (
    <>
      <h1>Evidence packs</h1>
      <p class="muted">
        Verification runs in this browser with the service's published keys (<code>/.well-known/jwks.json</code>):
        signatures, the audit log inclusion proof and checkpoint, and a replay of the decision.
      </p>
      <form
        class="card search-form"
        onSubmit={(e) => {
          e.preventDefault();
          void fetchAndVerify(packId);
        }}
      >
        <div class="field">
          <label for="pack-id">Evidence pack id</label>
          <input
            id="pack-id"
            type="text"
            placeholder="ns:evidence-pack:…"
            value={packId}
            onInput={(e) => setPackId((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={busy || packId.trim() === ''}>
            Fetch and verify
          </button>
        </div>
      </form>
      {error && <ErrorMessage error={error} />}
      {result && <VerificationResult result={result} />}
      <section class="card" aria-labelledby="pack-json-heading">
        <h2 id="pack-json-heading">Pack JSON</h2>
        <p class="muted">Paste a pack, or edit the fetched one, and verify it again.</p>
        <div class="field">
          <label for="pack-json">Evidence pack (JSON)</label>
          <textarea
            id="pack-json"
            rows={12}
            spellcheck={false}
            value={text}
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          />
        </div>
        <div class="actions" style={{ marginTop: '0.5rem' }}>
          <button type="button" disabled={busy || text.trim() === ''} onClick={() => void verify(text)}>
            Verify this JSON
          </button>
        </div>
      </section>
    </>
  );
}

function VerificationResult({ result }: { result: EvidenceVerificationResult }) {
  const replay = result.replay_decision;
  return (
    <section class="card" aria-labelledby="verification-heading" data-testid="verification" role="status">
      <h2 id="verification-heading">
        {result.valid ? (
          <span class="ok-text" data-valid="true">
            Valid: every check passed
          </span>
        ) : (
          <span class="fail-text" data-valid="false">
            Not valid: {result.checks.filter((c) => !c.valid).length} check(s) failed
          </span>
        )}
      </h2>
      <dl class="facts">
        <dt>Algorithm</dt>
        <dd>{result.algorithm}</dd>
        <dt>Key</dt>
        <dd>
          <code>{result.key_id ?? '—'}</code>
        </dd>
        <dt>Replayed decision</dt>
        <dd>
          {replay ? (
            <>
              <DecisionBadge decision={replay.decision} /> <code>{replay.reason}</code>{' '}
              {replay.matches ? '(as recorded)' : '(differs from the recorded one)'}
            </>
          ) : (
            'nothing to replay'
          )}
        </dd>
      </dl>
      <h3>Checks</h3>
      <ol class="check-list">
        {result.checks.map((c) => (
          <li key={c.check} data-check={c.check} data-valid={String(c.valid)}>
            <span class={c.valid ? 'ok-text' : 'fail-text'}>{c.valid ? 'passed' : 'failed'}</span>
            <code>{c.check}</code>
            <span>
              {CHECK_TEXT[c.check]}
              {c.failure ? (
                <>
                  {' '}
                  — <code>{c.failure}</code>
                </>
              ) : null}
            </span>
          </li>
        ))}
      </ol>
      <p>
        <a href={href('audit')}>See the audit chain</a>
      </p>
    </section>
  );
}
