/** What the bench scripts share: the median of their runs, and how they end. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

/** Runs a bench script's main, exiting 1 with its message when it fails. */
export function run(main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  })
}
