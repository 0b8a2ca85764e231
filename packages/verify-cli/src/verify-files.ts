/**
 * The loop every `aar-verify` command runs over its files: each is read as strict JSON (an unreadable one is INVALID
 * with the reason), verified, and printed as a line of JSON (`--json`) or as the command's own text; with more than
 * one file, a count. The exit status is invalid when any file was.
 */
import { EXIT_INVALID, EXIT_VALID, type Output } from './output.ts';
import { readJsonFile } from './read-json-file.ts';

export interface FileVerifier<R extends { valid: boolean }> {
  /** what a file holds, plural, for the count: `packs`, `bundles`, `chains` */
  noun: string;
  verify(value: unknown): Promise<R>;
  /** members the JSON line carries before the result's own (`bundle_id`, `now`) */
  jsonExtra?(value: unknown): Record<string, unknown>;
  describe(file: string, result: R): string;
}

export async function verifyFiles<R extends { valid: boolean }>(
  files: string[],
  json: boolean | undefined,
  io: Output,
  verifier: FileVerifier<R>,
): Promise<number> {
  let invalid = 0;
  for (const file of files) {
    const parsed = readJsonFile(file);
    if (!parsed.ok) {
      invalid++;
      io.out(
        json
          ? `${JSON.stringify({ file, valid: false, failure: parsed.reason })}\n`
          : `INVALID ${file}  ${parsed.reason}\n`,
      );
      continue;
    }
    const result = await verifier.verify(parsed.value);
    if (!result.valid) invalid++;
    const extra = verifier.jsonExtra?.(parsed.value) ?? {};
    io.out(json ? `${JSON.stringify({ file, ...extra, ...result })}\n` : verifier.describe(file, result));
  }
  if (!json && files.length > 1) io.out(`${files.length - invalid} of ${files.length} ${verifier.noun} valid\n`);
  return invalid > 0 ? EXIT_INVALID : EXIT_VALID;
}
