/**
 * temporal_validity: at the instant of the decision (the pack's `now`) every link of the chain was issued, unexpired
 * and not yet revoked (a revocation after the decision does not undo it; a state without its moment cannot be
 * placed, so it fails), and every signature of the bundle was made while its key was valid: each key's JWKS window
 * (`valid_from`, `valid_until`) holds the time its document states (the map's and links' issue, the pack's and the
 * bundle's assembly, the checkpoint's timestamp, the chain's `as_of`).
 */
import { isRecord, ownValue } from '../decide/guards.ts';
import { compareInstants, parseInstant } from '../decide/instant.ts';
import type { TrustedKeys } from '../signing/verify-document.ts';
import type { BundleContext } from './bundle-context.ts';
import type { BundleCheckOutcome } from './bundle-verification.ts';
import { isRetiredKeyProblem } from './delegation-checks.ts';

export function checkTemporalValidity(ctx: BundleContext): BundleCheckOutcome {
  const decidedAt = parseInstant(ctx.decidedAt);
  if (!decidedAt) return 'the evidence pack gives no decision instant';
  const failures: string[] = [];
  const chainDoc = ctx.part('delegation_chain');
  if (ctx.chain) {
    for (const p of ctx.chain.problems) {
      if (p.code === 'expired') failures.push(`link ${p.index} had expired (${p.field})`);
      if (isRetiredKeyProblem(p)) failures.push(`link ${p.index} was signed by a retired key`);
    }
    const links = ownValue(chainDoc, 'links');
    for (const report of ctx.chain.links) {
      const issued = parseInstant(ownValue(Array.isArray(links) ? links[report.index] : undefined, 'issued_at'));
      if (!issued || compareInstants(issued, decidedAt) > 0)
        failures.push(`link ${report.index} was issued after the decision`);
      if (report.state === null || report.state === 'active') continue;
      const revoked = parseInstant(report.revoked_at);
      if (!revoked) failures.push(`link ${report.index} is \`${report.state}\` since an unknown time`);
      else if (compareInstants(revoked, decidedAt) <= 0)
        failures.push(`link ${report.index} was revoked before the decision`);
    }
  }
  const signed: Array<[string, unknown, string]> = [
    ['bundle', ctx.bundle, 'created_at'],
    ['decision map', ctx.part('decision_map'), 'issued_at'],
    ['evidence pack', ctx.pack, 'issued_at'],
    ['checkpoint', ctx.part('checkpoint'), 'timestamp'],
    ['delegation chain', chainDoc, 'as_of'],
  ];
  for (const [what, doc, timeMember] of signed) {
    if (!isRecord(doc)) continue; // absent parts are other checks' failures
    const why = keyWindowProblem(ctx.jwks, ownValue(ownValue(doc, 'signature'), 'key_id'), ownValue(doc, timeMember));
    if (why) failures.push(`the ${what} ${why}`);
  }
  if (failures.length > 0) return failures.slice(0, 5).join('; ');
  return { ok: true, detail: `the chain and every signing key were valid at \`${ctx.decidedAt}\`` };
}

/** Why `keyId` was not valid at `time` by its JWKS window; undefined when it was, or when the key is unknown. */
function keyWindowProblem(jwks: TrustedKeys, keyId: unknown, time: unknown): string | undefined {
  if (typeof keyId !== 'string') return undefined;
  let key: unknown;
  try {
    if (typeof jwks === 'function') key = jwks(keyId);
    else {
      const keys: unknown = ownValue(jwks, 'keys');
      key = Array.isArray(keys) ? keys.find((k) => isRecord(k) && k.kid === keyId) : undefined;
    }
  } catch {
    return undefined;
  }
  if (!isRecord(key)) return undefined; // an unknown key fails its signature check, not this one
  const at = parseInstant(time);
  if (!at) return 'states no time its key can be judged at';
  const from = parseInstant(key.valid_from);
  const until = parseInstant(key.valid_until);
  if (key.valid_from !== undefined && (!from || compareInstants(at, from) < 0))
    return `was signed before key \`${keyId}\` was valid`;
  if (key.valid_until !== undefined && key.valid_until !== null && (!until || compareInstants(at, until) > 0)) {
    return `was signed after key \`${keyId}\` was retired`;
  }
  return undefined;
}
