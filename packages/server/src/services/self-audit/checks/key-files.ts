import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../../../app-context.ts';
import { keysDir } from '../../../keys/key-files.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/**
 * This instance's private key files are 0600 in a 0700 folder (keys/key-files.ts). The key ring refuses a readable
 * file when it loads, but a chmod after start goes unnoticed until the next reload: this check notices it. Names
 * and modes only: a key file is never opened here.
 */
export function checkKeyFiles(ctx: AppContext): SelfAuditCheck {
  const dir = keysDir(ctx.config.dataDir);
  const mode = (path: string) => statSync(path).mode & 0o777;
  const dirMode = mode(dir);
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ file: name, mode: mode(join(dir, name)).toString(8).padStart(3, '0') }));
  const exposed = files.filter((f) => (parseInt(f.mode, 8) & 0o077) !== 0);
  const evidence = { directory_mode: dirMode.toString(8).padStart(3, '0'), files, exposed: exposed.map((f) => f.file) };
  if (exposed.length === 0 && (dirMode & 0o077) === 0) {
    return passed('key_files_private', `${files.length} key files are 0600 in a 0700 folder`, evidence);
  }
  const commands = [
    ...((dirMode & 0o077) !== 0 ? [`chmod 700 ${dir}`] : []),
    ...exposed.map((f) => `chmod 600 ${join(dir, f.file)}`),
  ];
  return failed(
    'key_files_private',
    'fail',
    `${exposed.length} key files (or their folder) are readable by group or others`,
    evidence,
    `Restrict them now (${commands.join('; ')}), then rotate the signing key (\`aar keys rotate\`): anyone who ` +
      'could read the file may have copied it.',
  );
}
