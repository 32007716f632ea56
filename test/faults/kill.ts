/**
 * The long kill fault run (test/faults/README.md): `npm run faults -- --contacts 10000 --minutes 10`.
 * Options: `--contacts N` (10000), `--minutes M` of faults (5), `--daemons D` (3),
 * `--concurrency C` calls at once across the daemons (30), `--lease-ms L` (10000),
 * `--fault-gap-s S` mean seconds between faults (8), `--sigterm-every K` (4), `--http-checks H`
 * conversations checked through the API (300), `--seed X` (1), `--recordings-in-database`
 * (`VOICE_AGENT_RECORDINGS=database`; files by default). Prints the report; exits 1 on any
 * violation.
 */
import { Effect } from "effect"
import { runKill } from "./KillRun.ts"

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`)
  if (at < 0) return fallback
  const value = Number(process.argv[at + 1])
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number`)
  return value
}

const stamp = () => new Date().toISOString().slice(11, 19)

Effect.runPromise(Effect.scoped(runKill({
  contacts: arg("contacts", 10_000),
  chaosMs: arg("minutes", 5) * 60_000,
  daemons: arg("daemons", 3),
  concurrency: arg("concurrency", 30),
  leaseMs: arg("lease-ms", 10_000),
  faultGapMs: arg("fault-gap-s", 8) * 1000,
  sigtermEvery: arg("sigterm-every", 4),
  httpChecks: arg("http-checks", 300),
  recordings: process.argv.includes("--recordings-in-database") ? "database" : "fs",
  seed: arg("seed", 1),
  log: (line) => process.stdout.write(`${stamp()} ${line}\n`)
}))).then(
  (report) => {
    const { violations, ...figures } = report
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`)
    if (violations.length > 0) {
      process.stdout.write(`${violations.length} violation(s):\n${violations.slice(0, 100).join("\n")}\n`)
      process.exitCode = 1
    } else {
      process.stdout.write("no violation\n")
    }
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 2
  }
)
