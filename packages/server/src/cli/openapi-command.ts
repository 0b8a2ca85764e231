import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openApiDocument } from '../http/openapi.ts';
import { openRuntime } from '../runtime.ts';

/** Prints the OpenAPI document generated from the route schemas, built against a throwaway in-temp store. */
export function registerOpenApiCommand(program: Command): void {
  program
    .command('openapi')
    .description('print the generated OpenAPI 3.1 document')
    .option('--out <file>', 'write to a file instead of stdout')
    .action(async (flags: { out?: string }) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'aar-openapi-'));
      const ctx = await openRuntime(loadConfig({ AAR_DATA_DIR: dataDir, AAR_ISSUER_URL: 'http://127.0.0.1:8080' }));
      try {
        const app = await buildApp(ctx);
        const text = `${JSON.stringify(openApiDocument(app), null, 2)}\n`;
        if (flags.out) writeFileSync(flags.out, text);
        else process.stdout.write(text);
        await app.close();
      } finally {
        await ctx.store.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
}
