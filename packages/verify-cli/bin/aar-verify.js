#!/usr/bin/env node
// The installed command: the self-contained bundle built by scripts/build.mjs (no dependencies at run time).
import '../dist/aar-verify.js';
