/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for an MCP endpoint, as the MCP authorization specification
 * (2025-06-18 and 2025-11-25) asks of a protected MCP server: served at `/.well-known/oauth-protected-resource`
 * with the resource's path appended (RFC 9728 section 3.1: `/.well-known/oauth-protected-resource/mcp`), and at the
 * bare well-known path too, naming the authorization servers the operator configured. A 401 from the endpoint names
 * this document in `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728 section 5.1).
 */
export const PRM_PATH = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
  resource_documentation?: string;
}

/** `resource` is the MCP endpoint's absolute URL (`https://aar.example/mcp`). */
export function protectedResourceMetadata(
  resource: string,
  authorizationServers: readonly string[],
): ProtectedResourceMetadata {
  return {
    resource,
    authorization_servers: [...authorizationServers],
    bearer_methods_supported: ['header'],
    resource_name: 'Agent Authority Runtime MCP endpoint',
  };
}

/** The metadata URL for a resource URL: the well-known path, then the resource's own path. */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${PRM_PATH}${path}`;
}

/** The paths at which the metadata of `resource` is served. */
export function metadataPathsOf(resource: string): string[] {
  const path = new URL(resource).pathname;
  return path === '/' ? [PRM_PATH] : [`${PRM_PATH}${path}`, PRM_PATH];
}

/** The value of `WWW-Authenticate` on a 401 from the endpoint. */
export function bearerChallenge(resource: string): string {
  return `Bearer resource_metadata="${metadataUrlOf(resource)}"`;
}
