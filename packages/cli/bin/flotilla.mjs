#!/usr/bin/env node
// Runs the built CLI; `pnpm run build` (or scripts/up, scripts/test) builds it.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
