/**
 * Where a ref of a decision map, an evidence pack or an event resolves on the service: the GET path (under the base
 * URL) that returns the thing it names. The SDKs and the console follow refs with it; a test holds the server to it.
 * Returns undefined for a string that is not a ref of a kind the service serves. The ref is percent-encoded whole:
 * attacker-controlled text never becomes path segments of its own.
 */
const PATH_BY_PREFIX: ReadonlyArray<readonly [prefix: string, collection: string]> = [
  ['ns:entity:', '/v1/entities/'],
  ['ns:card_token:', '/v1/card-tokens/'],
  ['ns:authority:grant:', '/v1/grants/'],
  ['ns:delegation:', '/v1/delegations/'],
  ['ns:capability:', '/v1/capabilities/'],
  ['ns:scope:', '/v1/scopes/'],
  ['ns:state:', '/v1/states/'],
  ['ns:policy:', '/v1/policies/'],
  ['ns:decision_map:', '/v1/decision-maps/'],
  ['ns:decision:', '/v1/decisions/'],
  ['ns:evidence-pack:', '/v1/evidence-packs/'],
  ['ns:audit:', '/v1/audit/entries/'],
  ['ns:approval:', '/v1/approvals/'],
];

export function refPath(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || ref.length > 300) return undefined;
  for (const [prefix, collection] of PATH_BY_PREFIX) {
    if (ref.startsWith(prefix) && ref.length > prefix.length) return collection + encodeURIComponent(ref);
  }
  return undefined;
}
