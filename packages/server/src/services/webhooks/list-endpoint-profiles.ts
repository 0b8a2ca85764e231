import type { AppContext } from '../../app-context.ts';

export interface EndpointProfileRow {
  endpoint_id: string;
  profile: 'shared_secret' | 'asymmetric' | 'cose';
  state: 'enabled' | 'disabled';
  /** the URL's scheme only (`https`, `http`): the rest of a URL may carry a secret and is never read out here */
  scheme: string;
}

/** Every endpoint's signing profile, state and URL scheme, in registration order (for the self-audit). */
export async function listEndpointProfiles(ctx: AppContext): Promise<EndpointProfileRow[]> {
  const rows = await ctx.store.db
    .selectFrom('webhook_endpoints')
    .select(['endpoint_id', 'profile', 'state', 'url'])
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    endpoint_id: r.endpoint_id,
    profile: r.profile as EndpointProfileRow['profile'],
    state: r.state as EndpointProfileRow['state'],
    scheme: /^([a-z][a-z0-9+.-]*):/i.exec(r.url)?.[1]?.toLowerCase() ?? 'unknown',
  }));
}
