// npm pack / publish: the conformance kit lives at the repository root (one kit for every deployment), so a packed
// @aar/server carries a copy beside the package, where services/conformance/kit-location.ts looks first. `--remove`
// (postpack) deletes the copy again, so a checkout never runs stale fixtures from it.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../../../conformance', import.meta.url));
const target = fileURLToPath(new URL('../conformance', import.meta.url));
rmSync(target, { recursive: true, force: true });
if (!process.argv.includes('--remove')) {
  if (!existsSync(source)) throw new Error(`conformance kit not found at ${source}`);
  cpSync(source, target, { recursive: true });
}
