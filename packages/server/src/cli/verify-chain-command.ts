/**
 * `aar verify-chain FILE --jwks URL|FILE`: verifies an exported delegation chain (`ns.delegation_chain.v1`, as
 * `GET /v1/grants/{id}/chain` returns it) offline, with core's verifyDelegationChain. It opens no database and reads
 * no configuration: the only trust it needs is the issuer's JWKS (a file, or fetched from a URL). Exit code 0 when the
 * chain is valid, 1 when it is not (every problem printed, naming the link and field), 2 on a usage error.
 * Attacker assumption: the chain file is hostile; the JWKS is what the operator chose to trust.
 */
import { readFileSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import {
  AarError,
  parseStrictJson,
  resolveJwksUrl,
  verifyDelegationChain,
  type Jwks,
  type VerifyDelegationChainResult,
} from '@aar/core';

const FETCH_TIMEOUT_MS = 10_000;

export function registerVerifyChainCommand(program: Command): void {
  program
    .command('verify-chain')
    .description('verify a delegation chain offline (signatures, attenuation, order, expiry), with only the JWKS')
    .argument('<file>', 'the chain as exported by GET /v1/grants/{id}/chain (`-` for stdin)')
    .requiredOption(
      '--jwks <url-or-file>',
      "the issuer's keys: a file, a JWKS URL (path ending in /jwks.json) or the issuer URL",
    )
    .option('--now <timestamp>', 'judge expiry at this ISO 8601 time instead of the clock')
    .option('--json', 'print the full result as JSON')
    .action(async (file: string, flags: { jwks: string; now?: string; json?: boolean }) => {
      const chain = parseStrictJson(readText(file, 'chain'));
      const jwks = await loadJwks(flags.jwks);
      const now = flags.now ?? new Date().toISOString();
      const result = await verifyDelegationChain(chain, jwks, now);
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : describe(result, now));
      if (!result.valid) throw new CommanderError(1, 'aar.chainInvalid', 'the chain does not verify');
    });
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new AarError('invalid_request', `cannot read the ${what} \`${file}\`: ${(error as Error).message}`);
  }
}

async function loadJwks(source: string): Promise<Jwks> {
  let text: string;
  if (/^https?:\/\//i.test(source)) {
    // the SDKs' rule: a path ending in /jwks.json is the JWKS itself, any other URL the issuer's base
    const url = resolveJwksUrl(source);
    const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' }).catch(
      (error: unknown) => {
        throw new AarError('invalid_request', `cannot fetch the jwks \`${url}\`: ${(error as Error).message}`);
      },
    );
    if (!res.ok) throw new AarError('invalid_request', `the jwks \`${url}\` answered ${res.status}`);
    text = await res.text();
  } else {
    text = readText(source, 'jwks');
  }
  const jwks = parseStrictJson(text) as Partial<Jwks> | null;
  if (typeof jwks !== 'object' || jwks === null || !Array.isArray(jwks.keys)) {
    throw new AarError('invalid_request', `\`${source}\` is not a jwks \`{ "keys": [...] }\``);
  }
  return jwks as Jwks;
}

function describe(result: VerifyDelegationChainResult, now: string): string {
  const lines = [`chain of ${result.links.length} link(s), judged at ${now}`];
  for (const link of result.links) {
    // a revoked link shows when it was revoked (the document's `states[i].revoked_at`), never the chain's `as_of`
    const state = link.state ? `, ${link.state}${link.revoked_at ? ` at ${link.revoked_at}` : ''}` : '';
    const delegator = link.delegator_signed ? ', delegator signed' : '';
    lines.push(
      `  #${link.index} ${link.grant_id ?? '(no grant id)'} -> ${link.actor_entity_id ?? '?'}${delegator}${state}`,
    );
  }
  if (!result.document_signed) lines.push('  (the document itself is not signed by a trusted key: states not judged)');
  if (result.valid) lines.push('valid');
  else {
    lines.push(`INVALID: ${result.problems.length} problem(s)`);
    for (const p of result.problems) {
      const where = p.index === null ? 'document' : `link #${p.index} ${p.grant_id ?? ''}`.trim();
      lines.push(`  ${where}: ${p.code}${p.field ? ` at ${p.field}` : ''}: ${p.message}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
