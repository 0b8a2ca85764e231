/**
 * The console shell: sign-in with an API token (kept in memory only, see api-client.ts), then a navigation of the
 * sections the credential's role may read, and the page of the current hash route.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, createApiClient } from './api-client.ts';
import { ApprovalsPage } from './pages/approvals-page.tsx';
import { AuditPage } from './pages/audit-page.tsx';
import { ConnectorsPage } from './pages/connectors-page.tsx';
import { DecisionsPage } from './pages/decisions-page.tsx';
import { DictionariesPage } from './pages/dictionaries-page.tsx';
import { EntitiesPage } from './pages/entities-page.tsx';
import { EvidencePage } from './pages/evidence-page.tsx';
import { GrantsPage } from './pages/grants-page.tsx';
import { GraphPage } from './pages/graph-page.tsx';
import { ListingsPage } from './pages/listings-page.tsx';
import { OverviewPage } from './pages/overview-page.tsx';
import { ReportsPage } from './pages/reports-page.tsx';
import { RulePacksPage } from './pages/rule-packs-page.tsx';
import { SectorPacksPage } from './pages/sector-packs-page.tsx';
import { WebhooksPage } from './pages/webhooks-page.tsx';
import { href, useRoute } from './router.ts';
import { SessionContext, type Role, type Session } from './session.tsx';

interface Section {
  path: string;
  title: string;
  roles: Role[];
  render: (route: string[]) => ComponentChildren;
}

const SECTIONS: Section[] = [
  { path: 'overview', title: 'Overview', roles: ['auditor', 'principal'], render: () => <OverviewPage /> },
  { path: 'entities', title: 'Entities and cards', roles: ['auditor', 'principal'], render: () => <EntitiesPage /> },
  { path: 'grants', title: 'Grants', roles: ['auditor', 'principal'], render: () => <GrantsPage /> },
  { path: 'graph', title: 'Authority graph', roles: ['auditor', 'principal'], render: () => <GraphPage /> },
  { path: 'approvals', title: 'Approvals', roles: ['auditor', 'principal'], render: () => <ApprovalsPage /> },
  {
    path: 'decisions',
    title: 'Decisions',
    roles: ['auditor', 'principal'],
    render: (route) => <DecisionsPage id={route[1]} />,
  },
  {
    path: 'evidence',
    title: 'Evidence packs',
    roles: ['auditor', 'principal'],
    render: (route) => <EvidencePage id={route[1]} />,
  },
  {
    path: 'rule-packs',
    title: 'Policy packs',
    roles: ['auditor', 'principal'],
    render: (route) => <RulePacksPage name={route[1]} version={route[2]} />,
  },
  {
    path: 'dictionaries',
    title: 'Dictionaries',
    roles: ['auditor', 'principal'],
    render: (route) => <DictionariesPage name={route[1]} />,
  },
  { path: 'sector-packs', title: 'Sector packs', roles: ['auditor', 'principal'], render: () => <SectorPacksPage /> },
  {
    path: 'reports',
    title: 'Reports',
    roles: ['auditor'],
    render: (route) => <ReportsPage id={route[1]} />,
  },
  { path: 'audit', title: 'Audit chain', roles: ['auditor'], render: () => <AuditPage /> },
  { path: 'webhooks', title: 'Webhooks', roles: [], render: () => <WebhooksPage /> },
  { path: 'connectors', title: 'Connectors', roles: ['auditor', 'principal'], render: () => <ConnectorsPage /> },
  { path: 'listings', title: 'Listings', roles: ['auditor', 'principal'], render: () => <ListingsPage /> },
];

export function ConsoleApp() {
  const [session, setSession] = useState<Session | null>(null);
  if (session === null) return <SignIn onSession={setSession} />;
  return (
    <SessionContext.Provider value={session}>
      <Shell session={session} />
    </SessionContext.Provider>
  );
}

function visibleTo(role: Role): Section[] {
  return SECTIONS.filter((s) => role === 'admin' || s.roles.includes(role));
}

function Shell({ session }: { session: Session }) {
  const route = useRoute();
  const sections = visibleTo(session.role);
  const section = sections.find((s) => s.path === route[0]) ?? sections[0]!;
  const heading = useRef<HTMLDivElement>(null);
  // on navigation, move focus to the page so keyboard and screen reader users start at its heading
  useEffect(() => heading.current?.focus(), [route.join('/')]);
  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">
          Agent Authority Runtime <span class="brand-sub">Console</span>
        </span>
        <span class="who" data-testid="signed-in-as">
          Signed in as <strong>{session.role}</strong>
          {session.principal ? ` for ${session.principal}` : ''}
        </span>
        <button type="button" class="secondary" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <nav class="sidenav" aria-label="Console sections">
        <ul>
          {sections.map((s) => (
            <li key={s.path}>
              <a href={href(s.path)} aria-current={s === section ? 'page' : undefined}>
                {s.title}
              </a>
            </li>
          ))}
          <li>
            <a href="/simulator/">Purchase simulator</a>
          </li>
        </ul>
      </nav>
      <main id="main" class="content" tabIndex={-1} ref={heading}>
        {section.render(route)}
      </main>
    </div>
  );
}

function SignIn({ onSession }: { onSession: (session: Session | null) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    let signedOut = false;
    const signOut = () => {
      if (signedOut) return;
      signedOut = true;
      location.hash = '';
      onSession(null);
    };
    const api = createApiClient(token.trim(), signOut);
    try {
      const self = await api.get<{ role: Role; principal_entity_id: string | null }>('/v1/tokens/self');
      if (self.role === 'runtime') {
        setError('A runtime token is for an agent platform. Sign in with an admin, auditor or principal token.');
        return;
      }
      setToken('');
      onSession({ api, role: self.role, principal: self.principal_entity_id, signOut });
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'This token is unknown or revoked.'
          : `Could not sign in: ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="signin">
      <form class="card signin-card" onSubmit={submit} aria-labelledby="signin-heading">
        <h1 id="signin-heading">Agent Authority Runtime console</h1>
        <p class="muted">
          Sign in with an API token (admin, auditor or principal). It is kept in this tab's memory only: reloading or
          closing the tab signs you out.
        </p>
        <div class="field">
          <label for="token">API token</label>
          <input
            id="token"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            value={token}
            aria-invalid={error ? 'true' : 'false'}
            aria-describedby={error ? 'token-error' : undefined}
            onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        {error && (
          <p id="token-error" class="error" role="alert">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={busy || token.trim() === ''}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
          <a href="/simulator/">Try the purchase simulator</a>
        </div>
      </form>
    </main>
  );
}
