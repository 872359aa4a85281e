#!/usr/bin/env node
// `npm run dev`: `wrangler dev` with every argument given passed on as it
// is, beside the example tool server (dev/example-tools/), whose URL becomes
// the Worker's TOOLS_BASE_URL (`--var TOOLS_BASE_URL:...`) unless the
// arguments or the file wrangler reads variables from set it already: then
// the example tools are not started. wrangler runs in a process group of its
// own (it starts workerd processes that must stop with it): SIGINT, SIGTERM
// and SIGHUP here stop that group; when wrangler exits, the tool server
// stops and this exits with wrangler's status.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { constants } from 'node:os'
import { loadTs } from './load-ts.mjs'

const VARIABLE = 'TOOLS_BASE_URL'
const args = process.argv.slice(2)

/** The value of a `--name value` or `--name=value` option among `args` (the last one given), or undefined. */
function optionValue(names) {
  let value
  args.forEach((arg, i) => {
    for (const name of names) {
      if (arg === name) value = args[i + 1]
      else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1)
    }
  })
  return value
}

/** True when a `--var` of `args` sets the variable (`--var A:x B:y` takes several). */
function setByArguments() {
  let inVar = false
  for (const arg of args) {
    const value = arg.startsWith('--var=') ? arg.slice('--var='.length) : arg
    if (arg === '--var') inVar = true
    else if (value !== arg) inVar = true
    else if (arg.startsWith('-')) inVar = false
    if (inVar && value.startsWith(`${VARIABLE}:`)) return true
  }
  return false
}

/**
 * The file wrangler reads the Worker's local variables from, as it picks it:
 * `.dev.vars.<env>` or `.dev.vars`, else the `.env` files (all of them).
 */
function variableFiles() {
  const env = optionValue(['--env', '-e'])
  const devVars = [...(env ? [`.dev.vars.${env}`] : []), '.dev.vars'].find((file) => existsSync(file))
  if (devVars) return [devVars]
  return ['.env', '.env.local', ...(env ? [`.env.${env}`, `.env.${env}.local`] : [])].filter((file) => existsSync(file))
}

function setByFile() {
  const line = new RegExp(`^\\s*(export\\s+)?${VARIABLE}\\s*=`, 'm')
  return variableFiles().find((file) => line.test(readFileSync(file, 'utf8')))
}

const wranglerArgs = ['dev', ...args]
let tools
const setIn = setByArguments() ? 'the arguments' : setByFile()
if (setIn) {
  console.log(`${VARIABLE} is set by ${setIn}: the example tools (dev/example-tools/) are not started`)
} else {
  const { startExampleTools } = await loadTs(
    'dev/example-tools/index.ts',
    'node_modules/.cache/ai-prompt-shell/example-tools.mjs',
  )
  tools = await startExampleTools()
  wranglerArgs.push('--var', `${VARIABLE}:${tools.url}`)
  console.log(`example tools (REST, MCP, gRPC; dev/example-tools/) at ${tools.url}: the Worker's ${VARIABLE}`)
}

const wranglerBin = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js')
const wrangler = spawn(process.execPath, [wranglerBin, ...wranglerArgs], { stdio: 'inherit', detached: true })

/** Signals wrangler's whole group; quiet when it has gone already. */
function signalWrangler(signal) {
  try {
    process.kill(-wrangler.pid, signal)
  } catch (error) {
    if (error.code !== 'ESRCH') throw error
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => signalWrangler(signal))

const [code, signal] = await once(wrangler, 'exit')
// workerd, should wrangler have left it behind.
signalWrangler('SIGTERM')
await tools?.stop()
process.exit(code ?? 128 + (constants.signals[signal] ?? 0))
