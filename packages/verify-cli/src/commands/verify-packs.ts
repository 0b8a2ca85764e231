/**
 * `aar-verify pack FILE... --jwks FILE|URL`: evidence packs (CONTRACT section 11) with core's verifyEvidencePack, the
 * one `aar verify-pack` and the service run: signatures, bindings, the audit entry and its inclusion under the signed
 * checkpoint, and the decision replayed through core's `decide`.
 */
import { verifyEvidencePack, type EvidenceVerificationResult, type Jwks } from '@aar/core';
import { readJsonFile } from '../read-json-file.ts';
import { EXIT_INVALID, EXIT_VALID, type Output } from '../output.ts';

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

export async function verifyPacks(files: string[], jwks: Jwks, flags: VerifyFlags, io: Output): Promise<number> {
  let invalid = 0;
  for (const file of files) {
    const parsed = readJsonFile(file);
    if (!parsed.ok) {
      invalid++;
      io.out(
        flags.json
          ? `${JSON.stringify({ file, valid: false, failure: parsed.reason })}\n`
          : `INVALID ${file}  ${parsed.reason}\n`,
      );
      continue;
    }
    const result = await verifyEvidencePack(
      parsed.value,
      jwks,
      flags.origin === undefined ? {} : { origin: flags.origin },
    );
    if (!result.valid) invalid++;
    io.out(flags.json ? `${JSON.stringify({ file, ...result })}\n` : describe(file, result));
  }
  if (!flags.json && files.length > 1) io.out(`${files.length - invalid} of ${files.length} packs valid\n`);
  return invalid > 0 ? EXIT_INVALID : EXIT_VALID;
}
