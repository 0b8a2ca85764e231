export * from './aar-client.ts';
export * from './errors.ts';
export * from './events-feed.ts';
export * from './paginate.ts';
export * from './retry-policy.ts';
export type * from './route-types.ts';
export type * from './mandate-types.ts';
export type { AarResponse, QueryValue } from './send-request.ts';
