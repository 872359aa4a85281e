#!/usr/bin/env node
// `npx ai-prompt-shell`: runs the CLI (cli/index.ts), bundled on each run in a
// checkout (scripts/load-ts.mjs).
import { loadTs } from '../scripts/load-ts.mjs'

const { main } = await loadTs('cli/index.ts', 'dist/cli/ai-prompt-shell.mjs')
process.exitCode = await main(process.argv.slice(2))
