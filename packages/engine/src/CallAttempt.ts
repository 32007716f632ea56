/**
 * One claimed contact, from the claim to the end of its call: the offer to the SDK agents
 * serving its campaign (`CallControllers`, when the engine has them), the DNC re-check and the
 * conversation record (`DialerRepository.startCall`), the carrier's `placeCall`, the call
 * followed to its end by CallLifecycle (on its `CallEvents`, subscribed before the carrier is
 * asked, so no event is missed; the stand-in agent's hang-ups too), and the end (`endCall`, one
 * transaction for the conversation, the contact's next state and the webhook events). Every path ends the claim: a claim never outlives
 * its attempt except when the process dies, and then its lease expires and any dialer recovers it.
 * So those steps are tried again until they are done when the database is out of reach (the
 * loop of a live process keeps renewing its leases: an attempt that gave up would hold its
 * contact until the process exits); a stopping process gives them a few tries only.
 *
 * The offer comes first, with the call id the call is then placed with (the SDK agent's call
 * socket names it). `taken` or `none`: the call goes ahead. `declined`: the claim is released
 * as `agent-declined`, with no conversation record and no attempt used (the contact is due again
 * after ContactState's back-off). While the offer waits, the claim is an ordinary claim: the
 * loop keeps renewing its lease, and a shutdown releases it.
 *
 * @since 0.1.0
 */
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import type { ClaimedContact } from "@voice-agent/core/ports/DialerRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { DialerWakeup } from "@voice-agent/core/ports/DialerWakeup"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as Tracing from "@voice-agent/core/Tracing"
import { Cause, Clock, Effect, Ref, Result } from "effect"
import type { Scope } from "effect"
import { randomUUID } from "node:crypto"
import * as CallLifecycle from "./CallLifecycle.ts"
import type { DialerSettings } from "./DialerSettings.ts"
import { offerer } from "./internal/offerCall.ts"
import * as MediaToken from "./MediaToken.ts"

type Phase = "claimed" | "placing" | "following" | "done"

/** Between tries of a bookkeeping step that failed: 250 ms, doubling up to 5 s. */
const retryDelayMs = (tries: number): number => Math.min(5_000, 250 * 2 ** Math.min(tries, 5))

/** Once the process is stopping, a failing bookkeeping step gets this many tries (about 2 s). */
const triesWhileStopping = 4

/**
 * Runs a bookkeeping step of the attempt (`startCall`, `endCall`, `release`) until it is done.
 * The database may be out of reach for a while (restarted, failed over); an attempt that gave up
 * would leave its lease in place, and the loop of this live process renews every lease it holds,
 * so the contact would stay "being dialed" until the process exits. Each step re-checks the
 * lease it acts on, so trying again is safe. Once `stopping`, the step gets a few more tries and
 * then fails: the process is about to exit, and its leases then expire and are recovered.
 */
const persist = <A>(what: string, step: Effect.Effect<A>, stopping: Ref.Ref<boolean>): Effect.Effect<A> => {
  const loop = (tries: number): Effect.Effect<A> =>
    step.pipe(
      Effect.catchCause((cause) =>
        Effect.gen(function*() {
          if (Cause.hasInterruptsOnly(cause)) return yield* Effect.failCause(cause)
          if ((yield* Ref.get(stopping)) && tries >= triesWhileStopping) return yield* Effect.failCause(cause)
          if (tries === 0) yield* Effect.logWarning(`${what} failed; trying again until it is done`, cause)
          yield* Effect.sleep(retryDelayMs(tries))
          const result = yield* loop(tries + 1)
          if (tries === 0) yield* Effect.logInfo(`${what} done after all`)
          return result
        })
      )
    )
  return loop(0)
}

/**
 * Runs the attempt for `claim`. `stopping` turns a claim that has not been dialed yet into a
 * release (`shutdown`); an interruption while the call lives hangs it up and records it as
 * `agent-failure`.
 *
 * @category constructors
 */
export const run = (
  claim: ClaimedContact,
  settings: DialerSettings,
  stopping: Ref.Ref<boolean>
): Effect.Effect<void, never, DialerRepository | Carrier | CallEvents | DialerWakeup | ServerSecrets> =>
  Effect.gen(function*() {
    const repository = yield* DialerRepository
    const carrier = yield* Carrier
    const callEvents = yield* CallEvents
    const wakeup = yield* DialerWakeup
    const mediaKey = MediaToken.keyFrom(yield* (yield* ServerSecrets).cursorKey)
    const offer = yield* offerer
    const { worker } = settings
    const { contactId } = claim
    const phase = yield* Ref.make<Phase>("claimed")
    const callId = randomUUID()
    const follower = yield* CallLifecycle.make(callId, {
      timings: settings,
      agent: settings.agent,
      standIn: settings.standIn
    })
    let conversationId: string | undefined

    const finish = (end: CallLifecycle.Ended) =>
      Effect.gen(function*() {
        yield* persist(
          `Recording the end of call ${callId}`,
          repository.endCall({
            contactId,
            worker,
            conversationId: conversationId!,
            outcome: end.outcome,
            endedBy: end.endedBy,
            answeredAt: end.answeredAt,
            endedAt: end.at
          }),
          stopping
        )
        yield* Ref.set(phase, "done")
        yield* Effect.logInfo(`Call ${callId} to ${claim.phoneNumber} ended: ${end.outcome}`)
        yield* wakeup.notify
      })

    const onInterrupted = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      switch (yield* Ref.get(phase)) {
        case "claimed":
          return yield* persist(
            `Releasing contact ${contactId}`,
            repository.release({ contactId, worker, reason: "shutdown", now }),
            stopping
          )
        case "placing":
        case "following":
          return yield* finish(yield* follower.stop)
        case "done":
          return
      }
    })

    /** Releases the claim as `reason`: it never became a call. */
    const release = (reason: "shutdown" | "agent-declined") =>
      Effect.gen(function*() {
        yield* Ref.set(phase, "done")
        const now = yield* Clock.currentTimeMillis
        yield* persist(
          `Releasing contact ${contactId}`,
          repository.release({ contactId, worker, reason, now }),
          stopping
        )
      })

    const attempt = Effect.gen(function*() {
      if (yield* Ref.get(stopping)) return yield* release("shutdown")
      const answer = yield* offer({
        _tag: "Campaign",
        callId,
        organizationId: claim.organizationId,
        campaignId: claim.campaignId,
        contactId,
        phoneNumber: claim.phoneNumber,
        data: claim.data
      })
      if (answer === "declined") {
        yield* Effect.logInfo(`Contact ${contactId} not called: the SDK agent declined call ${callId}`)
        return yield* release("agent-declined")
      }
      // An SDK agent that took the call waits on its events: a call not placed after all has
      // failed, so the agent hears it (outbound-call-failed) and its session ends.
      const withdraw = answer === "taken"
        ? Effect.flatMap(
          Clock.currentTimeMillis,
          (at) => callEvents.publish(callId, { _tag: "Ended", at, reason: "failed" })
        )
        : Effect.void
      // The process began stopping while the offer waited: not dialed yet, so released.
      if (yield* Ref.get(stopping)) return yield* Effect.andThen(withdraw, release("shutdown"))
      const start = yield* persist(
        `Starting call ${callId}`,
        Effect.flatMap(Clock.currentTimeMillis, (now) => repository.startCall({ contactId, worker, callId, now })),
        stopping
      )
      if (start._tag === "NotPlaced") {
        yield* Ref.set(phase, "done")
        yield* withdraw
        return yield* Effect.logInfo(`Contact ${contactId} not called: ${start.reason}`)
      }
      conversationId = start.conversationId
      yield* Ref.set(phase, "placing")
      yield* Effect.scoped(follow(start.from))
    })

    const follow = (from: string): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function*() {
        const events = yield* callEvents.subscribe(callId)
        const placed = yield* Effect.result(
          carrier.placeCall({
            from,
            to: claim.phoneNumber,
            callId,
            mediaUrl: settings.mediaUrl(callId),
            mediaToken: MediaToken.sign(
              mediaKey,
              callId,
              (yield* Clock.currentTimeMillis) + settings.ringTimeoutMs + CallLifecycle.tokenSlackMs
            )
          }).pipe(CallLifecycle.dialing)
        )
        if (Result.isFailure(placed)) {
          const error = placed.failure
          const now = yield* Clock.currentTimeMillis
          yield* Effect.logInfo(`Carrier refused call ${callId} to ${claim.phoneNumber}: ${error.reason}`)
          if (!error.isRetryable) return yield* finish(yield* follower.ended(now, "failed"))
          yield* persist(
            `Releasing contact ${contactId}`,
            repository.release({ contactId, worker, reason: "carrier-retryable", now, conversationId }),
            stopping
          )
          return yield* Ref.set(phase, "done")
        }
        yield* Ref.set(phase, "following")
        yield* finish(yield* follower.follow(events))
      })

    yield* attempt.pipe(
      Effect.onInterrupt(() => onInterrupted),
      Tracing.call(callId, CallLifecycle.callAttributes("campaign", "outbound"))
    )
  }).pipe(
    Effect.annotateLogs({ contact: claim.contactId }),
    Effect.catchCause((cause) =>
      Effect.logError("Call attempt failed; its lease will expire once this process exits, and be recovered", cause)
    )
  )
