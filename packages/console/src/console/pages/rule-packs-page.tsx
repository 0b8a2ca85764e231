/**
 * Policy packs (CONTRACT section 19): every rule pack with its domain, its newest version's state, its versions and
 * how many activations use it; one pack's versions; one version's page (pack-version-page.tsx).
 */
import { formatTime, shortId } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { listPacks, packVersions } from '../policy/policy-api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';
import { PackVersionPage } from './pack-version-page.tsx';

export function RulePacksPage({ name, version }: { name: string | undefined; version: string | undefined }) {
  // keyed: another version is another page (no backtest or test state carried over)
  if (name && version) return <PackVersionPage key={`${name}@${version}`} name={name} version={version} />;
  if (name) return <PackVersions name={name} />;
  return <PackList />;
}

function PackList() {
  const { api } = useSession();
  const packs = useApi(() => listPacks(api), []);
  return (
    <>
      <h1>Policy packs</h1>
      <p class="muted">
        Rule packs narrow decisions after the built-in checks: a published version is signed and immutable, and is
        applied by an activation (deployment-wide, per principal or per grant), enforced or in shadow.
      </p>
      <LoadState loaded={packs}>
        {(list) => (
          <section class="card" aria-label="Rule packs">
            {list.length === 0 ? (
              <p class="muted">No rule pack yet.</p>
            ) : (
              <div class="table-wrap">
                <table data-testid="pack-list">
                  <thead>
                    <tr>
                      <th scope="col">Pack</th>
                      <th scope="col">Domain</th>
                      <th scope="col">State</th>
                      <th scope="col">Versions</th>
                      <th scope="col">Activations</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((p) => (
                      <tr key={p.name} data-pack={p.name}>
                        <td>
                          <a href={href('rule-packs', p.name)}>{p.title}</a>
                          <div>
                            <code>{p.name}</code> <span class="muted">({p.origin})</span>
                          </div>
                        </td>
                        <td>{p.domain}</td>
                        <td>
                          <StateBadge state={p.state} />
                        </td>
                        <td>
                          {p.versions.map((v, i) => (
                            <span key={v.version}>
                              {i > 0 && ', '}
                              <a href={href('rule-packs', p.name, v.version)}>{v.version}</a>
                            </span>
                          ))}
                        </td>
                        <td data-testid="pack-activations">
                          {p.activations.enforce + p.activations.shadow === 0
                            ? 'none'
                            : [
                                p.activations.enforce > 0 && `${p.activations.enforce} enforced`,
                                p.activations.shadow > 0 && `${p.activations.shadow} in shadow`,
                              ]
                                .filter(Boolean)
                                .join(', ')}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        )}
      </LoadState>
    </>
  );
}

function PackVersions({ name }: { name: string }) {
  const { api } = useSession();
  const versions = useApi(() => packVersions(api, name), [name]);
  return (
    <>
      <p>
        <a href={href('rule-packs')}>All policy packs</a>
      </p>
      <h1>
        Policy pack <code>{name}</code>
      </h1>
      <LoadState loaded={versions}>
        {(list) => (
          <section class="card" aria-label="Versions">
            {list.length === 0 ? (
              <p class="muted">No version.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Version</th>
                      <th scope="col">Title</th>
                      <th scope="col">State</th>
                      <th scope="col">Digest</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((v) => (
                      <tr key={v.version}>
                        <td>
                          <a href={href('rule-packs', name, v.version)}>{v.version}</a>
                        </td>
                        <td>{v.title}</td>
                        <td>
                          <StateBadge state={v.state} />
                        </td>
                        <td>
                          <code>{v.digest ? shortId(v.digest).slice(0, 20) : 'draft'}</code>
                        </td>
                        <td>{formatTime(v.updated_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        )}
      </LoadState>
    </>
  );
}
