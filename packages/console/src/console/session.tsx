/** The signed-in session, shared by every page: the API client (holding the token) and the credential's role. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from './api-client.ts';

export type Role = 'admin' | 'runtime' | 'principal' | 'auditor';

export interface Session {
  api: ApiClient;
  role: Role;
  principal: string | null;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in console');
  return session;
}

/** What a role may read, mirroring the routes' `x-roles` (admin may do everything). */
export function may(session: Pick<Session, 'role'>, ...roles: Role[]): boolean {
  return session.role === 'admin' || roles.includes(session.role);
}
