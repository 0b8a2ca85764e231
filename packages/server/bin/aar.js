#!/usr/bin/env node
// The `aar` CLI. Sources are TypeScript run through tsx's loader: no build step, no generated files to drift.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
