/**
 * Dictionaries (CONTRACT section 19): the controlled vocabularies rules and the service read (ISO 18245 merchant
 * categories, countries, currencies, the service's own closed lists), and one dictionary's terms with a search over
 * code, label and attributes. Long lists are shown a page at a time; the search runs in the page on the document.
 */
import { useState } from 'preact/hooks';
import { LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { getDictionary, listDictionaries, searchTerms } from '../policy/policy-api.ts';
import { href, setQuery, useQuery } from '../router.ts';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

const PAGE = 100;

export function DictionariesPage({ name }: { name: string | undefined }) {
  return name ? <DictionaryTerms name={name} /> : <DictionaryList />;
}

function DictionaryList() {
  const { api } = useSession();
  const list = useApi(() => listDictionaries(api), []);
  return (
    <>
      <h1>Dictionaries</h1>
      <p class="muted">
        Controlled vocabularies: rules read their terms, and the service checks its own inputs against them.
      </p>
      <LoadState loaded={list}>
        {(rows) => (
          <section class="card" aria-label="Dictionaries">
            {rows.length === 0 ? (
              <p class="muted">No dictionary yet.</p>
            ) : (
              <div class="table-wrap">
                <table data-testid="dictionary-list">
                  <thead>
                    <tr>
                      <th scope="col">Dictionary</th>
                      <th scope="col">Version</th>
                      <th scope="col">State</th>
                      <th scope="col">Origin</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((d) => (
                      <tr key={`${d.name}@${d.version}`} data-dictionary={d.name}>
                        <td>
                          <a href={href('dictionaries', d.name)}>{d.title}</a>
                          <div>
                            <code>{d.name}</code>
                          </div>
                        </td>
                        <td>{d.version}</td>
                        <td>
                          <StateBadge state={d.state} />
                        </td>
                        <td>{d.origin}</td>
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

function DictionaryTerms({ name }: { name: string }) {
  const { api } = useSession();
  const doc = useApi(() => getDictionary(api, name), [name]);
  const query = useQuery();
  const [text, setText] = useState(query.q ?? '');
  const [shown, setShown] = useState(PAGE);
  return (
    <>
      <p>
        <a href={href('dictionaries')}>All dictionaries</a>
      </p>
      <LoadState loaded={doc}>
        {(d) => {
          const terms = d.terms ?? [];
          const found = searchTerms(terms, query.q ?? '');
          const attributes = [...new Set(terms.flatMap((t) => Object.keys(t)))].filter(
            (k) => k !== 'code' && k !== 'label',
          );
          return (
            <>
              <div class="page-head">
                <h1>{d.title || name}</h1>
                <code>
                  {d.dictionary_id}@{d.version}
                </code>
              </div>
              <p class="muted">Source: {d.source}</p>
              <form
                class="card search-form"
                role="search"
                aria-label="Search terms"
                onSubmit={(e) => {
                  e.preventDefault();
                  setShown(PAGE);
                  setQuery({ q: text.trim() });
                }}
              >
                <div class="field">
                  <label for="term-search">Code, label or attribute</label>
                  <input
                    id="term-search"
                    type="search"
                    value={text}
                    onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
                  />
                </div>
                <div class="actions">
                  <button type="submit">Search</button>
                </div>
              </form>
              <section class="card" aria-label="Terms">
                <p role="status" data-testid="term-count">
                  {found.length} of {terms.length} terms
                </p>
                <div class="table-wrap">
                  <table data-testid="term-table">
                    <thead>
                      <tr>
                        <th scope="col">Code</th>
                        <th scope="col">Label</th>
                        {attributes.map((a) => (
                          <th key={a} scope="col">
                            {a}
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {found.slice(0, shown).map((t) => (
                        <tr key={t.code} data-term={t.code}>
                          <td>
                            <code>{t.code}</code>
                          </td>
                          <td>{t.label}</td>
                          {attributes.map((a) => (
                            <td key={a}>
                              {t[a] === undefined ? '—' : typeof t[a] === 'string' ? t[a] : JSON.stringify(t[a])}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                {found.length > shown && (
                  <div class="actions">
                    <button type="button" class="secondary" onClick={() => setShown(shown + PAGE)}>
                      Show {Math.min(PAGE, found.length - shown)} more
                    </button>
                  </div>
                )}
              </section>
            </>
          );
        }}
      </LoadState>
    </>
  );
}
