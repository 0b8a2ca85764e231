import type { AppConfig } from '../config.ts';

/**
 * The origin of this service's log, as checkpoints name it (C2SP style: a schema-less URL): the issuer's host and
 * path plus `/audit`, e.g. `aar.example.com/audit`. A verifier compares it with the log it expects: a checkpoint of
 * another origin proves nothing about this log, even when the same key signed it.
 * INVARIANT: changing AAR_ISSUER_URL changes the origin of later checkpoints; the tree itself goes on unchanged.
 */
export function auditOrigin(config: Pick<AppConfig, 'issuerUrl'>): string {
  const url = new URL(config.issuerUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/audit`;
}
