/**
 * One rule pack version: what it is (state, domain, digest, dictionaries, declared reasons), each rule in plain words
 * beside its JSON, the pack's own tests run by the server (`POST …/test`), and a backtest against stored decisions.
 */
import { RuleCard } from '../../shared/rule-card.tsx';
import { ErrorMessage, LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { BacktestPanel } from '../policy/backtest-panel.tsx';
import { getPackVersion, listActivations, testPackVersion } from '../policy/policy-api.ts';
import { href } from '../router.ts';
import { may, useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

export function PackVersionPage({ name, version }: { name: string; version: string }) {
  const session = useSession();
  const { api } = session;
  // tests and backtests are for administrators and auditors (a backtest reads everyone's decisions)
  const mayRun = may(session, 'auditor');
  const pack = useApi(() => getPackVersion(api, name, version), [name, version]);
  return (
    <>
      <p>
        <a href={href('rule-packs', name)}>All versions of {name}</a>
      </p>
      <LoadState loaded={pack}>
        {(p) => (
          <>
            <div class="page-head">
              <h1>{p.title}</h1>
              <code data-testid="pack-ref">
                {p.pack_id}@{p.version}
              </code>
            </div>
            <section class="card" aria-labelledby="pack-about">
              <h2 id="pack-about">About this version</h2>
              {p.document.description && <p>{p.document.description}</p>}
              <dl class="facts">
                <dt>State</dt>
                <dd>
                  <StateBadge state={p.state} />
                </dd>
                <dt>Domain</dt>
                <dd>{p.domain}</dd>
                <dt>Origin</dt>
                <dd>{p.origin}</dd>
                <dt>Digest</dt>
                <dd>
                  <code>{p.digest ?? 'none: a draft'}</code>
                </dd>
                <dt>Dictionaries</dt>
                <dd>
                  {(p.document.dictionaries ?? []).length === 0
                    ? '—'
                    : p.document.dictionaries.map((d, i) => {
                        const dict = d.replace(/^ns:dictionary:/, '').split('@')[0]!;
                        return (
                          <span key={d}>
                            {i > 0 && ', '}
                            <a href={href('dictionaries', dict)}>{d}</a>
                          </span>
                        );
                      })}
                </dd>
              </dl>
              <Activations name={name} version={version} />
            </section>
            <section class="card" aria-labelledby="pack-rules">
              <h2 id="pack-rules">Rules, in the order they are evaluated</h2>
              {(p.document.rules ?? []).length === 0 ? (
                <p class="muted">No rule: this pack carries compliance controls only.</p>
              ) : (
                <div data-testid="pack-rules">
                  {p.document.rules.map((rule) => (
                    <RuleCard key={rule.rule_id} rule={rule} reasons={p.document.reasons} />
                  ))}
                </div>
              )}
            </section>
            {mayRun && <PackTests name={name} version={version} declared={p.document.tests?.length ?? 0} />}
            {mayRun && <BacktestPanel name={name} version={version} />}
          </>
        )}
      </LoadState>
    </>
  );
}

function Activations({ name, version }: { name: string; version: string }) {
  const { api } = useSession();
  const activations = useApi(async () => (await listActivations(api)).filter((a) => a.name === name), [name]);
  if (activations.error) return <ErrorMessage error={activations.error} />;
  const live = (activations.data ?? []).filter((a) => a.version === version && a.state === 'active');
  return (
    <>
      <h3>Activations of this version</h3>
      {live.length === 0 ? (
        <p class="muted">Not active anywhere.</p>
      ) : (
        <ul data-testid="version-activations">
          {live.map((a) => (
            <li key={a.activation_id}>
              {a.mode === 'shadow' ? 'In shadow' : 'Enforced'} for {a.target} <code>{a.activation_id}</code>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function PackTests({ name, version, declared }: { name: string; version: string; declared: number }) {
  const { api } = useSession();
  const run = useApi(() => testPackVersion(api, name, version), [name, version]);
  return (
    <section class="card" aria-labelledby="pack-tests">
      <h2 id="pack-tests">The pack's tests</h2>
      <p class="muted">
        {declared} test case{declared === 1 ? '' : 's'} written with the pack, run now by the server on the pack's own
        rules and dictionaries. A pack whose tests fail cannot be published.
      </p>
      <LoadState loaded={run}>
        {(r) => (
          <>
            <p data-testid="pack-test-summary">
              <strong>
                {r.passed} passed, {r.failed} failed
              </strong>
            </p>
            <div class="table-wrap">
              <table data-testid="pack-test-results">
                <thead>
                  <tr>
                    <th scope="col">Test</th>
                    <th scope="col">Result</th>
                    <th scope="col">Expected</th>
                    <th scope="col">Got</th>
                  </tr>
                </thead>
                <tbody>
                  {r.results.map((t) => (
                    <tr key={t.name}>
                      <td>{t.name}</td>
                      <td>
                        <span class={`badge badge-${t.passed ? 'allow' : 'deny'}`} data-passed={String(t.passed)}>
                          {t.passed ? 'Passed' : 'Failed'}
                        </span>
                      </td>
                      <td>
                        <code>{t.expected}</code>
                      </td>
                      <td>
                        <code>{t.actual}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </LoadState>
    </section>
  );
}
