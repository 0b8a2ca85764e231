/**
 * Runs the MCP conformance suite (`@modelcontextprotocol/conformance`, its `server` command, active suite) against
 * an MCP endpoint and reads each scenario's verdict from the results it saves (`<out>/server-<scenario>-<time>/
 * checks.json`): a scenario passes when none of its checks is a FAILURE. The suite runs as its own process on its
 * own CLI; nothing of it is copied here.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
export const CONFORMANCE_CLI = join(
  require.resolve('@modelcontextprotocol/conformance/package.json').replace(/package\.json$/, ''),
  'dist/index.js',
);

export interface ConformanceRun {
  /** scenario -> passed */
  verdicts: Map<string, boolean>;
  /** scenario -> the failing checks' messages */
  failures: Map<string, string[]>;
  output: string;
}

export async function runConformance(url: string, timeoutMs = 120_000): Promise<ConformanceRun> {
  const out = mkdtempSync(join(tmpdir(), 'aar-mcp-conformance-'));
  try {
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [CONFORMANCE_CLI, 'server', '--url', url, '-o', out], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the conformance suite did not finish in ${timeoutMs} ms: ${text.slice(-2000)}`));
      }, timeoutMs);
      // its exit status is non-zero whenever any scenario fails: the verdicts below are what counts
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(text);
      });
    });
    const verdicts = new Map<string, boolean>();
    const failures = new Map<string, string[]>();
    for (const dir of readdirSync(out)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
      if (!scenario) continue;
      const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Array<{
        status: string;
        id: string;
        errorMessage?: string;
      }>;
      const failed = checks.filter((c) => c.status === 'FAILURE');
      verdicts.set(scenario, checks.length > 0 && failed.length === 0);
      if (failed.length > 0)
        failures.set(
          scenario,
          failed.map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`),
        );
    }
    return { verdicts, failures, output };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
