/**
 * Sector packs (CONTRACT section 19): for one sector, the rule packs it activates, the scope templates it offers for
 * grants and the dictionaries it reads. Each rule pack links to its version page.
 */
import { LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { listSectorPacks, nameOf } from '../policy/policy-api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

export function SectorPacksPage() {
  const { api } = useSession();
  const packs = useApi(() => listSectorPacks(api), []);
  return (
    <>
      <h1>Sector packs</h1>
      <p class="muted">
        A sector's rule packs, grant scope templates and dictionaries, applied to a principal in one step.
      </p>
      <LoadState loaded={packs}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No sector pack yet.</p>
          ) : (
            <div data-testid="sector-packs">
              {list.map((s) => (
                <section
                  key={`${s.sector_pack_id}@${s.version}`}
                  class="card"
                  aria-label={s.title}
                  data-sector={s.sector}
                >
                  <div class="page-head">
                    <h2>{s.title}</h2>
                    <span>
                      <code>
                        {s.sector_pack_id}@{s.version}
                      </code>{' '}
                      <StateBadge state={s.state} />
                    </span>
                  </div>
                  <dl class="facts">
                    <dt>Sector</dt>
                    <dd>{s.sector}</dd>
                    <dt>Rule packs</dt>
                    <dd>
                      {s.rule_packs.length === 0
                        ? '—'
                        : s.rule_packs.map((ref, i) => {
                            const [id, version] = ref.split('@');
                            const name = nameOf(id ?? ref);
                            return (
                              <span key={ref}>
                                {i > 0 && ', '}
                                <a href={version ? href('rule-packs', name, version) : href('rule-packs', name)}>
                                  {ref}
                                </a>
                              </span>
                            );
                          })}
                    </dd>
                    <dt>Dictionaries</dt>
                    <dd>
                      {s.dictionaries.length === 0
                        ? '—'
                        : s.dictionaries.map((ref, i) => (
                            <span key={ref}>
                              {i > 0 && ', '}
                              <a href={href('dictionaries', nameOf(ref.split('@')[0] ?? ref))}>{ref}</a>
                            </span>
                          ))}
                    </dd>
                    <dt>Scope templates</dt>
                    <dd>
                      {s.scope_templates.length === 0 ? (
                        '—'
                      ) : (
                        <ul>
                          {s.scope_templates.map((t) => (
                            <li key={t.name}>
                              <details>
                                <summary>{t.name}</summary>
                                <pre class="rule-json">{JSON.stringify(t.scope, null, 2)}</pre>
                              </details>
                            </li>
                          ))}
                        </ul>
                      )}
                    </dd>
                  </dl>
                </section>
              ))}
            </div>
          )
        }
      </LoadState>
    </>
  );
}
