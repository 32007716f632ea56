/**
 * The kill fault run, short (test/faults/KillRun.ts says what it checks; test/faults/kill.ts is
 * the long one): three `serve` daemons on one PostgreSQL database dial 100 simulated contacts
 * of every outcome for 20 s while a fault hits one every 5 s or so (SIGKILL and restart, every
 * third a SIGTERM of the daemon in the most calls), with 4 s leases; then no violation, and the
 * faults did hit calls in progress: some were recovered from killed daemons, some drained.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runKill } from "./KillRun.ts"

describe("three daemons killed and restarted at random", () => {
  it.live(
    "never dial a contact twice at once, leave none stuck, lose no record, and drain on SIGTERM",
    () =>
      Effect.gen(function*() {
        const report = yield* runKill({
          contacts: 100,
          chaosMs: 20_000,
          daemons: 3,
          concurrency: 12,
          leaseMs: 4_000,
          faultGapMs: 5_000,
          sigtermEvery: 3,
          httpChecks: 1_000,
          recordings: "fs",
          seed: 12,
          log: () => {}
        })
        const { violations, ...figures } = report
        assert.deepStrictEqual(violations, [], JSON.stringify(figures))
        assert.isAtLeast(report.sigkillsMidCall, 1, "a SIGKILL hit a daemon in a call")
        assert.isAtLeast(report.recoveredCalls, 1, "a killed daemon's call was recovered")
        assert.strictEqual(report.sigterms, 1)
        assert.isAtLeast(report.drainedCalls, 1, "the SIGTERM hit a daemon in a call")
        assert.isAtLeast(report.byReason["user-hangup"] ?? 0, 1, "conversations finished")
        assert.isAtLeast(report.wavFiles, 2)
      }).pipe(Effect.scoped),
    { timeout: 150_000 }
  )
})
