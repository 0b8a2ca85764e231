/**
 * The reference connector catalogue (GET /v1/connectors): what each connector is, what it may do (its side effect
 * level and risk), and what it requires of a deployment, filterable by family.
 */
import { useState } from 'preact/hooks';
import { LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Manifest {
  connector_id: string;
  name: string;
  connector_type: string;
  category: string;
  version: string;
  risk: { risk_level: string; side_effect_level: string; requires_signature_verification: boolean };
  status: string;
}

export function ConnectorsPage() {
  const { api } = useSession();
  const catalogue = useApi(() => api.get<{ items: Manifest[] }>('/v1/connectors'), []);
  const [family, setFamily] = useState('');
  return (
    <>
      <h1>Connectors</h1>
      <LoadState loaded={catalogue}>
        {({ items }) => {
          const families = [...new Set(items.map((m) => m.category))].sort();
          const shown = family ? items.filter((m) => m.category === family) : items;
          return (
            <section class="card" aria-labelledby="catalogue-heading">
              <div class="page-head">
                <h2 id="catalogue-heading">
                  Reference catalogue{' '}
                  <span class="muted">
                    ({shown.length} of {items.length})
                  </span>
                </h2>
                <div class="field">
                  <label for="family">Family</label>
                  <select
                    id="family"
                    value={family}
                    onChange={(e) => setFamily((e.currentTarget as HTMLSelectElement).value)}
                  >
                    <option value="">All families</option>
                    {families.map((f) => (
                      <option key={f} value={f}>
                        {f}
                      </option>
                    ))}
                  </select>
                </div>
              </div>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Connector</th>
                      <th scope="col">Type</th>
                      <th scope="col">Side effect</th>
                      <th scope="col">Risk</th>
                      <th scope="col">Status</th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((m) => (
                      <tr key={m.connector_id}>
                        <td>
                          {m.name} <span class="muted">{m.version}</span>
                          <div>
                            <code class="muted">{m.connector_id}</code>
                          </div>
                        </td>
                        <td>{m.connector_type}</td>
                        <td>{m.risk.side_effect_level}</td>
                        <td>{m.risk.risk_level}</td>
                        <td>
                          <StateBadge state={m.status} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          );
        }}
      </LoadState>
    </>
  );
}
