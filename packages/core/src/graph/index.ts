export * from './types.ts';
export { buildAuthorityGraph, chainOf, actorKind, MAX_GRAPH_CHAIN, type AuthorityGraph } from './authority-graph.ts';
export { pathLimits, pathLinks } from './path-limits.ts';
export { authorityPaths, spendersOf, capabilitiesOf, pathsBetween } from './graph-queries.ts';
export { blastRadius } from './blast-radius.ts';
export { principalGraph } from './principal-graph.ts';
