/**
 * The dial loop of one process (docs/DIALER.md): each tick recovers expired leases, claims
 * callable contacts of the campaigns open now (under the caps, across every daemon on the
 * database), and starts a call attempt per claim; then it sleeps until the next due retry or
 * window opening, a wake-up (an upload, a campaign change, a call's end), or the safety poll,
 * whichever comes first. Its leases are renewed every third of their length while it lives.
 *
 * Shutdown (the scope closing): claiming stops at once; claims not dialed yet are released
 * (`shutdown`, no attempt used); calls in progress get `drainMs` to end, then are hung up and
 * recorded as `agent-failure`. Their leases are renewed all along, so no other daemon takes a
 * call back while it drains. A process that dies without that leaves leases that any other
 * dialer recovers when they expire.
 *
 * @since 0.1.0
 */
import { isOpenAt, nextOpenAt } from "@voice-agent/core/CallingSchedule"
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import type { DialableCampaign } from "@voice-agent/core/ports/DialerRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { DialerWakeup } from "@voice-agent/core/ports/DialerWakeup"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import type { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { Clock, Duration, Effect, FiberSet, Layer, Option, Queue, Ref, Schedule, Stream } from "effect"
import type { Scope } from "effect"
import * as CallAttempt from "./CallAttempt.ts"
import type { DialerSettings } from "./DialerSettings.ts"

/** Most expired leases recovered in one tick. */
const recoveryBatch = 100

/**
 * When the loop should look again, from what `dialableCampaigns` told it at `now`: the
 * earliest instant a campaign with a due-or-waiting contact is open at or after that
 * contact's next attempt time. `undefined` when nothing is waiting.
 *
 * @category math
 */
export const nextDueAt = (campaigns: ReadonlyArray<DialableCampaign>, now: number): number | undefined => {
  let earliest: number | undefined
  for (const campaign of campaigns) {
    if (campaign.nextDueAt === null) continue
    const at = nextOpenAt(campaign.schedule, Math.max(now, campaign.nextDueAt))
    if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at
  }
  return earliest
}

/**
 * Runs the loop until the scope closes. With `CallControllers` in the context (optional), each
 * claim's call is first offered to the SDK agents serving its campaign (CallAttempt). With a
 * `RecordingStore` (optional: a `dial` process has none), the recovery of a lost call finalizes
 * the recordings this process holds of it.
 *
 * @category constructors
 */
export const run = (
  settings: DialerSettings
): Effect.Effect<void, never, DialerRepository | Carrier | CallEvents | DialerWakeup | ServerSecrets | Scope.Scope> =>
  Effect.gen(function*() {
    const repository = yield* DialerRepository
    const wakeup = yield* DialerWakeup
    // Recordings kept outside the database (files) are finalized by the recovery of their lost
    // calls when this process holds them; the database's are finalized by the recovery itself.
    const finalizeRecordings = Option.getOrUndefined(
      Option.map(yield* Effect.serviceOption(RecordingStore), (store) => store.finalizeLost)
    )
    const { worker, leaseMs } = settings
    const stopping = yield* Ref.make(false)
    // Leases are renewed until the very end: forked first, this fiber is interrupted last, after
    // the drain and after the calls cut short by it have recorded their end. (Stopped before the
    // drain, the leases of calls still going expired during it, and other daemons recovered
    // those calls as lost while they went on.)
    yield* Effect.forkScoped(
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* repository.renewLeases({ worker, now, leaseMs })
      }).pipe(
        Effect.catchCause((cause) => Effect.logWarning("Lease renewal failed", cause)),
        Effect.repeat(Schedule.spaced(Duration.millis(Math.max(1, Math.floor(leaseMs / 3)))))
      )
    )
    const calls = yield* FiberSet.make<void>()
    // Finalizers run in reverse order: the loop stops first (it is forked last), then unplaced
    // claims are released and calls get `drainMs`, then the FiberSet interrupts what is left,
    // and only then does lease renewal stop.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Ref.set(stopping, true)
        const inFlight = yield* FiberSet.size(calls)
        if (inFlight > 0) {
          yield* Effect.logInfo(`Stopping: waiting up to ${settings.drainMs} ms for ${inFlight} call(s)`)
        }
        yield* FiberSet.awaitEmpty(calls).pipe(Effect.timeoutOption(settings.drainMs))
      })
    )

    const signal = yield* Queue.sliding<void>(1)
    const wakeups = yield* wakeup.wakeups
    yield* Effect.forkScoped(Stream.runForEach(wakeups, () => Queue.offer(signal, undefined)))

    const tick = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const recovered = yield* repository.recoverExpired({ now, limit: recoveryBatch, finalizeRecordings })
      if (recovered > 0) yield* Effect.logInfo(`Recovered ${recovered} contact(s) whose dialer stopped`)
      const campaigns = yield* repository.dialableCampaigns(now)
      const open = campaigns.filter((campaign) => isOpenAt(campaign.schedule, now)).map((campaign) => campaign.id)
      const room = Math.min(settings.claimBatch, settings.maxCalls - (yield* FiberSet.size(calls)))
      const claimed = open.length > 0 && room > 0
        ? yield* repository.claim({ worker, campaignIds: open, now, leaseMs, limit: room })
        : []
      for (const claim of claimed) yield* FiberSet.run(calls, CallAttempt.run(claim, settings, stopping))
      // Look again at once: the campaigns' next due times were read before these claims.
      if (claimed.length > 0) return 0
      const due = nextDueAt(campaigns, now)
      // Due now but nothing claimed: every cap is full or the contacts are locked; a call's end
      // (or another daemon's) wakes the loop.
      if (due === undefined || due <= now) return settings.safetyPollMs
      return Math.min(due - now, settings.safetyPollMs)
    }).pipe(
      Effect.catchCause((cause) => Effect.logError("Dial loop tick failed; trying again", cause).pipe(Effect.as(1_000)))
    )

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function*() {
          const sleepMs = yield* tick
          if (sleepMs > 0) yield* Effect.raceFirst(Effect.sleep(Duration.millis(sleepMs)), Queue.take(signal))
        })
      )
    )
    yield* Effect.logInfo(`Dialer ${worker} started`)
  }).pipe(Effect.annotateLogs({ worker: settings.worker }))

/**
 * The loop as a layer: it runs while the layer lives.
 *
 * @category layers
 */
export const layer = (
  settings: DialerSettings
): Layer.Layer<never, never, DialerRepository | Carrier | CallEvents | DialerWakeup | ServerSecrets> =>
  Layer.effectDiscard(run(settings))
