/**
 * `aar-verify pack FILE... --jwks FILE|URL`: evidence packs (CONTRACT section 11) with core's verifyEvidencePack, the
 * one `aar verify-pack` and the service run: signatures, bindings, the audit entry and its inclusion under the signed
 * checkpoint, and the decision replayed through core's `decide`.
 */
import { verifyEvidencePack, type EvidenceVerificationResult, type Jwks } from '@aar/core';
import type { Output } from '../output.ts';
import { verifyFiles } from '../verify-files.ts';

export interface VerifyFlags {
  origin?: string | undefined;
  json?: boolean | undefined;
}

function describe(file: string, result: EvidenceVerificationResult): string {
  const replay = result.replay_decision;
  const replayed = replay ? `${replay.decision}/${replay.reason}${replay.matches ? '' : ' (MISMATCH)'}` : 'none';
  if (result.valid) return `valid   ${file}  key ${result.key_id}  replay ${replayed}\n`;
  const failed = result.checks.filter((c) => !c.valid).map((c) => `${c.check}: ${c.failure ?? 'failed'}`);
  return `INVALID ${file}  ${failed.join(', ')}\n`;
}

export function verifyPacks(files: string[], jwks: Jwks, flags: VerifyFlags, io: Output): Promise<number> {
  return verifyFiles(files, flags.json, io, {
    noun: 'packs',
    verify: (value) => verifyEvidencePack(value, jwks, flags.origin === undefined ? {} : { origin: flags.origin }),
    describe,
  });
}
