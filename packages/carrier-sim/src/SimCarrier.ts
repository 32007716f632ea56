/**
 * The simulated carrier (CONTRACT §6), deterministic, for development, demos and tests.
 *
 * Calls: `placeCall` refuses only what a carrier would (a `to` that is not E.164: non-retryable
 * `rejected`; also a call id that is still in a call of ours), then hands the call to a script
 * that runs in the layer's scope and returns at once with a carrier call id (`CA` and 32 hex
 * digits, like Twilio's). The script reports the call's progress to `CallEvents` under our call
 * id, at instants read from `Clock` (so `TestClock` drives it): `Ringing` at once, then by the
 * number's `SimOutcome` (timings in `SimOutcome.timings`):
 *
 * - `conversation`: `Answered` (human) after 1 s; the person hangs up after 3 to 6 s
 *   (`SimOutcome.conversationMs`, fixed per number): `Ended` `remote-hangup`.
 * - `early-hangup`: `Answered` (human) after 1 s; the person hangs up 1 s later.
 * - `never-hangs-up`: `Answered` (human) after 1 s; the call lasts until we hang up.
 * - `voicemail`: `Answered` (`machine`) after 1 s; the machine never hangs up either.
 * - `busy`: `Ended` `busy` after 1 s. `no-answer`: `Ended` `no-answer` after 3 s of ringing.
 * - `carrier-failure`: `Ended` `failed` right after `Ringing` (the request was accepted; the
 *   call failed in the network).
 *
 * `hangUp` ends the call's script at once and reports `Ended` `local-hangup`, unless the call
 * had already ended (then, as for a call it never placed, it does nothing); it returns when the
 * call's `Ended` is reported. A call's state is dropped when its script ends, and closing the
 * layer interrupts every script in flight (reporting nothing more). Calls carry no audio yet:
 * media over the daemon's WebSocket comes with issue 8.
 *
 * SMS: a message to a number whose outcome is `carrier-failure` (555-0170..0179) is refused
 * like a carrier refusing an unreachable destination; every other message is accepted with
 * status `queued`, as Twilio answers a send.
 *
 * @since 0.1.0
 */
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEndReason, CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Carrier, CarrierError } from "@voice-agent/core/ports/Carrier"
import { Clock, Deferred, Effect, Layer } from "effect"
import type { Scope } from "effect"
import { randomUUID } from "node:crypto"
import { conversationMs, outcomeFor, timings } from "./SimOutcome.ts"

/** A call whose script is running: `hungUp` is completed by `hangUp`, `done` when the script ends. */
interface LiveCall {
  readonly hungUp: Deferred.Deferred<void>
  readonly done: Deferred.Deferred<void>
}

/**
 * What happens to a call to `to` after `Ringing`, up to (not including) its `Ended`: the
 * effect answers the end reason, or never completes for a call that only we can end.
 */
const timeline = (
  to: string,
  report: (event: CallEvent) => Effect.Effect<void>
): Effect.Effect<CallEndReason> => {
  const answer = (answeredBy: "human" | "machine") =>
    Effect.sleep(timings.ringMs).pipe(
      Effect.andThen(Clock.currentTimeMillis),
      Effect.flatMap((at) => report({ _tag: "Answered", at, answeredBy }))
    )
  switch (outcomeFor(to)) {
    case "conversation":
      return answer("human").pipe(Effect.andThen(Effect.sleep(conversationMs(to))), Effect.as("remote-hangup"))
    case "early-hangup":
      return answer("human").pipe(Effect.andThen(Effect.sleep(timings.earlyHangupMs)), Effect.as("remote-hangup"))
    case "never-hangs-up":
      return answer("human").pipe(Effect.andThen(Effect.never))
    case "voicemail":
      return answer("machine").pipe(Effect.andThen(Effect.never))
    case "busy":
      return Effect.sleep(timings.ringMs).pipe(Effect.as("busy"))
    case "no-answer":
      return Effect.sleep(timings.noAnswerMs).pipe(Effect.as("no-answer"))
    case "carrier-failure":
      return Effect.succeed("failed")
  }
}

/**
 * The simulated `Carrier`. Calls' scripts run in the scope this is built in.
 *
 * @category constructors
 */
export const make: Effect.Effect<Carrier["Service"], never, CallEvents | Scope.Scope> = Effect.gen(function*() {
  const events = yield* CallEvents
  const scope = yield* Effect.scope
  const calls = new Map<string, LiveCall>()

  const report = (callId: string) => (event: CallEvent) => events.publish(callId, event)

  const script = (callId: string, to: string, call: LiveCall): Effect.Effect<void> =>
    Effect.gen(function*() {
      const publish = report(callId)
      yield* publish({ _tag: "Ringing", at: yield* Clock.currentTimeMillis })
      const reason = yield* Effect.raceFirst(
        timeline(to, publish),
        Deferred.await(call.hungUp).pipe(Effect.as<CallEndReason>("local-hangup"))
      )
      yield* publish({ _tag: "Ended", at: yield* Clock.currentTimeMillis, reason })
    })

  return Carrier.of({
    placeCall: (request) =>
      Effect.suspend(() => {
        if (!isE164(request.to)) {
          return Effect.fail(
            new CarrierError({ reason: "rejected", message: `${JSON.stringify(request.to)} is not an E.164 number` })
          )
        }
        if (calls.has(request.callId)) {
          return Effect.fail(
            new CarrierError({ reason: "rejected", message: `call ${request.callId} is already in progress` })
          )
        }
        const call: LiveCall = { hungUp: Deferred.makeUnsafe(), done: Deferred.makeUnsafe() }
        calls.set(request.callId, call)
        return script(request.callId, request.to, call).pipe(
          Effect.forkIn(scope),
          // however the script ends (also interrupted before it started), the call is gone
          Effect.tap((fiber) =>
            Effect.sync(() =>
              fiber.addObserver(() => {
                if (calls.get(request.callId) === call) calls.delete(request.callId)
                Deferred.doneUnsafe(call.done, Effect.void)
              })
            )
          ),
          Effect.as({ carrierCallId: `CA${randomUUID().replaceAll("-", "")}` })
        )
      }).pipe(Effect.uninterruptible),
    hangUp: (callId) =>
      Effect.suspend(() => {
        const call = calls.get(callId)
        if (call === undefined) return Effect.void
        return Deferred.succeed(call.hungUp, undefined).pipe(Effect.andThen(Deferred.await(call.done)))
      }),
    sendSms: (message) =>
      outcomeFor(message.to) === "carrier-failure"
        ? Effect.fail(new CarrierError({ reason: "rejected", message: `destination ${message.to} is unreachable` }))
        : Effect.sync(() => ({ messageId: `SM${randomUUID().replaceAll("-", "")}`, status: "queued" }))
  })
})

/**
 * @category layers
 */
export const layer: Layer.Layer<Carrier, never, CallEvents> = Layer.effect(Carrier, make)
