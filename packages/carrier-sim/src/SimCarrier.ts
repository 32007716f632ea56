/**
 * The simulated carrier (its README holds the outcome table), deterministic, for development, demos
 * and tests.
 *
 * Calls: `placeCall` refuses only what a carrier would (a `to` that is not E.164: non-retryable
 * `rejected`; also a call id that is still in a call of ours), then hands the call to a script
 * that runs in the layer's scope and returns at once with a carrier call id (`CA` and 32 hex
 * digits, like Twilio's). The script reports the call's progress to `CallEvents` under our call
 * id, at instants read from `Clock` (so `TestClock` drives it): `Ringing` at once, then by the
 * number's `SimOutcome` (timings in `SimOutcome.timings`):
 *
 * - `busy`: `Ended` `busy` after 1 s. `no-answer`: `Ended` `no-answer` after 3 s of ringing.
 * - `carrier-failure`: `Ended` `failed` right after `Ringing` (the request was accepted; the
 *   call failed in the network).
 * - `conversation`, `early-hangup`, `never-hangs-up`: `Answered` (human) after 1 s;
 *   `voicemail`: `Answered` (`machine`) after 1 s. What follows depends on media.
 *
 * Answering machines (`Options.machineDetection`): by default the carrier tells them, as Twilio's
 * detection does (`Answered` says `human` or `machine`). With `"engine"` it cannot, as a SIP
 * trunk cannot: every answered outbound call's `Answered` says `unknown`, the engine decides
 * from the audio, and a person who talks says "Hello?" as they pick up (`SimPerson`). Inbound
 * calls are `human` either way.
 *
 * Media. When the context it is built in has a `MediaConnector`, an answered call streams: at
 * the answer the carrier connects to the request's `mediaUrl` and speaks Twilio's side of Media
 * Streams (`SimMediaStream`: `connected`, `start` with `customParameters.token` = the request's
 * `mediaToken` and `callSid` = the carrier call id, 20 ms μ-law frames, marks and `clear`
 * answered as Twilio does), with the outcome's person or answering machine on the line
 * (`SimPerson`: answers questions, hangs up 300 ms after a goodbye, or 1 s after the answer, or
 * never; the machine plays a greeting and a beep). The call ends when the person hangs up
 * (`stop`, the stream closed, `Ended` `remote-hangup`), when the server closes the stream
 * (Twilio ends a `<Connect><Stream>` call then: `Ended` `local-hangup`), or at `hangUp`. A
 * stream that cannot be connected ends the call at once with `local-hangup` (logged).
 *
 * Without a `MediaConnector` calls carry no audio: a `conversation` person hangs up 3 to 6 s
 * after the answer (`SimOutcome.conversationMs`, fixed per number), an `early-hangup` one 1 s
 * after it (`Ended` `remote-hangup`), and `never-hangs-up` and `voicemail` calls last until we
 * hang up.
 *
 * Briefings (docs/AGENTS.md, the simulated person's answers): when the context has
 * `SimBriefings`, a person who answers is first briefed for the call (the checklist fields of
 * the call's agent and the contact's `data.sim_answers`, `SimPerson.Briefing`); a briefing
 * that cannot be had leaves them unbriefed.
 *
 * `hangUp` ends the call's script at once (sending `stop` and closing the stream of a call
 * with media) and reports `Ended` `local-hangup`, unless the call had already ended (then, as
 * for a call it never placed, it does nothing); it returns when the call's `Ended` is reported.
 * A call's state is dropped when its script ends, and closing the layer interrupts every
 * script in flight (closing their streams, reporting nothing more).
 *
 * `transfer` moves an answered call (README, `transfer`): its stream stops at once (`stop`,
 * closed), the person talks with the target for `conversationMs` of the target, then `Ended`
 * `remote-hangup`; a `hangUp` meanwhile still ends it (`local-hangup`). Refused (`rejected`): a
 * target not E.164 or in the carrier-failure range, a call not in progress, not answered or
 * already transferred.
 *
 * Inbound calls (`InboundSimulator.callIn`, docs/ADMIN.md): the call is
 * answered at once (`Answered` human) and streams like an answered outbound call, the caller on
 * the line by the last four digits of the caller's number: `early-hangup` and `never-hangs-up`
 * numbers behave as such, every other number is a person who talks (no one calls in busy).
 * `hangUp` ends it like any call.
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
import { Carrier, CarrierError, InboundSimulator } from "@voice-agent/core/ports/Carrier"
import type { PlaceCallRequest } from "@voice-agent/core/ports/Carrier"
import { MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import * as Tracing from "@voice-agent/core/Tracing"
import { Clock, Context, Deferred, Duration, Effect, Layer, Option, Result } from "effect"
import type { Scope } from "effect"
import { randomUUID } from "node:crypto"
import * as SimMediaStream from "./SimMediaStream.ts"
import type { SimOutcome } from "./SimOutcome.ts"
import { conversationMs, outcomeFor, timings } from "./SimOutcome.ts"
import * as SimPerson from "./SimPerson.ts"

/**
 * Where the carrier learns what its person is told before a call (the daemon reads the call's
 * agent definition and contact).
 *
 * @category services
 */
export class SimBriefings extends Context.Service<SimBriefings, {
  readonly briefingFor: (callId: string) => Effect.Effect<SimPerson.Briefing>
}>()("@voice-agent/carrier-sim/SimCarrier/SimBriefings") {}

/**
 * Who tells answering machines from people on outbound calls: the carrier (`carrier`, the
 * default) or the engine, from the audio (`engine`; module header).
 *
 * @category models
 */
export type MachineDetection = "carrier" | "engine"

/**
 * How the simulated carrier behaves.
 *
 * @category models
 */
export interface Options {
  readonly machineDetection?: MachineDetection | undefined
}

/** The carrier and its inbound callers. */
type Simulated = { readonly carrier: Carrier["Service"]; readonly simulator: InboundSimulator["Service"] }

/**
 * A call whose script is running: `hungUp` is completed by `hangUp`, `transferred` (with the
 * target) by `transfer`, `done` when the script ends; `answered` once it is.
 */
interface LiveCall {
  readonly hungUp: Deferred.Deferred<void>
  readonly transferred: Deferred.Deferred<string>
  readonly done: Deferred.Deferred<void>
  answered: boolean
}

/**
 * The simulated account the streams' `start` and `stop` name (`AC` and 32 hex digits).
 *
 * @category models
 */
export const ACCOUNT_SID = "AC00000000000000000000000000000000"

const hex32 = () => randomUUID().replaceAll("-", "")

/** The ringing: the end of a call never answered, or who answers. */
const ringing = (outcome: SimOutcome): Effect.Effect<CallEndReason | "human" | "machine"> => {
  switch (outcome) {
    case "busy":
      return Effect.sleep(Duration.millis(timings.ringMs)).pipe(Effect.as("busy"))
    case "no-answer":
      return Effect.sleep(Duration.millis(timings.noAnswerMs)).pipe(Effect.as("no-answer"))
    case "carrier-failure":
      return Effect.succeed("failed")
    case "voicemail":
      return Effect.sleep(Duration.millis(timings.ringMs)).pipe(Effect.as("machine"))
    case "conversation":
    case "early-hangup":
    case "never-hangs-up":
      return Effect.sleep(Duration.millis(timings.ringMs)).pipe(Effect.as("human"))
  }
}

/** An answered call without media: the end reason, or never for a call that only we can end. */
const silentCall = (outcome: SimPerson.AnsweredOutcome, to: string): Effect.Effect<CallEndReason> => {
  switch (outcome) {
    case "conversation":
      return Effect.sleep(Duration.millis(conversationMs(to))).pipe(Effect.as("remote-hangup"))
    case "early-hangup":
      return Effect.sleep(Duration.millis(timings.earlyHangupMs)).pipe(Effect.as("remote-hangup"))
    case "never-hangs-up":
    case "voicemail":
      return Effect.never
  }
}

/** Who calls in from `from`: its answered outcome; numbers no one would answer call as people who talk. */
const callerOutcome = (outcome: SimOutcome): SimPerson.AnsweredOutcome => {
  switch (outcome) {
    case "early-hangup":
    case "never-hangs-up":
      return outcome
    case "conversation":
    case "voicemail":
    case "busy":
    case "no-answer":
    case "carrier-failure":
      return "conversation"
  }
}

/**
 * An answered call with media: connects to the call's media URL and streams it until the call
 * ends, with the person or machine of the outcome on the line.
 */
const mediaCall = (
  connector: MediaConnector["Service"],
  request: PlaceCallRequest,
  carrierCallId: string,
  outcome: SimPerson.AnsweredOutcome,
  hungUp: Effect.Effect<void>,
  briefings: Option.Option<SimBriefings["Service"]>,
  manner: SimPerson.Manner
): Effect.Effect<CallEndReason> =>
  Effect.scoped(
    Effect.gen(function*() {
      const connected = yield* Effect.raceFirst(
        Effect.result(connector.connect(request.mediaUrl)).pipe(Effect.map(Option.some)),
        Effect.as(hungUp, Option.none())
      )
      if (Option.isNone(connected)) return "local-hangup"
      if (Result.isFailure(connected.value)) {
        // Twilio: the stream failed, and no TwiML follows `<Connect>`: the call ends
        yield* Effect.logWarning(
          `Simulated call ${request.callId}: media stream not connected, hanging up (${connected.value.failure.message})`
        )
        return "local-hangup"
      }
      const briefing = Option.isNone(briefings)
        ? SimPerson.unbriefed
        : yield* briefings.value.briefingFor(request.callId).pipe(
          Effect.catchCause(() => Effect.succeed(SimPerson.unbriefed))
        )
      return yield* SimMediaStream.run({
        socket: connected.value.success,
        accountSid: ACCOUNT_SID,
        callSid: carrierCallId,
        streamSid: `MZ${hex32()}`,
        customParameters: { token: request.mediaToken },
        person: (line) => SimPerson.behave(outcome, line, briefing, manner),
        hangUp: hungUp
      })
    })
  )

/**
 * The simulated `Carrier` with `options`. Calls' scripts run in the scope this is built in;
 * answered calls stream media through the `MediaConnector` when the context has one.
 *
 * @category constructors
 */
export const makeWith = Effect.fnUntraced(function*(options: Options) {
  const engineDetects = options.machineDetection === "engine"
  const manner: SimPerson.Manner = { saysHello: engineDetects }
  const events = yield* CallEvents
  const connector = yield* Effect.serviceOption(MediaConnector)
  const briefings = yield* Effect.serviceOption(SimBriefings)
  const scope = yield* Effect.scope
  const calls = new Map<string, LiveCall>()

  /**
   * An answered call from its answer to its end: with us (media or not) until someone hangs up
   * or the call is transferred; a transferred call then goes on between the person and the
   * target, for `conversationMs` of the target, unless we hang it up.
   */
  const answeredCall = (
    request: PlaceCallRequest,
    carrierCallId: string,
    call: LiveCall,
    outcome: SimPerson.AnsweredOutcome,
    person: string,
    manner: SimPerson.Manner
  ): Effect.Effect<CallEndReason> =>
    Effect.gen(function*() {
      call.answered = true
      const hungUp = Deferred.await(call.hungUp)
      const leaves = Effect.raceFirst(hungUp, Effect.asVoid(Deferred.await(call.transferred)))
      const reason = Option.isSome(connector)
        ? yield* mediaCall(connector.value, request, carrierCallId, outcome, leaves, briefings, manner)
        : yield* Effect.raceFirst(silentCall(outcome, person), Effect.as(leaves, "local-hangup" as const))
      if (Deferred.isDoneUnsafe(call.hungUp) || !Deferred.isDoneUnsafe(call.transferred)) return reason
      const onward = yield* Deferred.await(call.transferred)
      return yield* Effect.raceFirst(
        Effect.as(Effect.sleep(Duration.millis(conversationMs(onward))), "remote-hangup" as const),
        Effect.as(hungUp, "local-hangup" as const)
      )
    })

  /** An inbound call: answered at once, the caller on the line by their number's outcome. */
  const inboundScript = (request: PlaceCallRequest, carrierCallId: string, call: LiveCall): Effect.Effect<void> =>
    Effect.gen(function*() {
      const publish = (event: CallEvent) => events.publish(request.callId, event)
      yield* publish({ _tag: "Answered", at: yield* Clock.currentTimeMillis, answeredBy: "human" })
      const caller = callerOutcome(outcomeFor(request.from))
      const reason = yield* answeredCall(request, carrierCallId, call, caller, request.from, { saysHello: false })
      yield* publish({ _tag: "Ended", at: yield* Clock.currentTimeMillis, reason })
    })

  /** Runs a call's script in the layer's scope, tracked for `hangUp` until it ends. */
  const start = (
    request: PlaceCallRequest,
    run: (request: PlaceCallRequest, carrierCallId: string, call: LiveCall) => Effect.Effect<void>
  ) =>
    Effect.suspend(() => {
      if (calls.has(request.callId)) {
        return Effect.fail(
          new CarrierError({ reason: "rejected", message: `call ${request.callId} is already in progress` })
        )
      }
      const call: LiveCall = {
        hungUp: Deferred.makeUnsafe(),
        transferred: Deferred.makeUnsafe(),
        done: Deferred.makeUnsafe(),
        answered: false
      }
      calls.set(request.callId, call)
      const carrierCallId = `CA${hex32()}`
      return run(request, carrierCallId, call).pipe(
        // The carrier's side of the call is not the engine's: a trace of its own (core Tracing).
        Tracing.apart("carrier-sim.call", request.callId),
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
        Effect.as({ carrierCallId })
      )
    }).pipe(Effect.uninterruptible)

  const script = (request: PlaceCallRequest, carrierCallId: string, call: LiveCall): Effect.Effect<void> =>
    Effect.gen(function*() {
      const publish = (event: CallEvent) => events.publish(request.callId, event)
      const hungUp = Deferred.await(call.hungUp)
      const untilHungUp = <A>(effect: Effect.Effect<A>) =>
        Effect.raceFirst(effect, Effect.as(hungUp, "local-hangup" as const))
      const outcome = outcomeFor(request.to)
      yield* publish({ _tag: "Ringing", at: yield* Clock.currentTimeMillis })
      const answer = yield* untilHungUp(ringing(outcome))
      if (answer !== "human" && answer !== "machine") {
        return yield* publish({ _tag: "Ended", at: yield* Clock.currentTimeMillis, reason: answer })
      }
      yield* publish({
        _tag: "Answered",
        at: yield* Clock.currentTimeMillis,
        answeredBy: engineDetects ? "unknown" : answer
      })
      const answered = outcome as SimPerson.AnsweredOutcome
      const reason = yield* answeredCall(request, carrierCallId, call, answered, request.to, manner)
      yield* publish({ _tag: "Ended", at: yield* Clock.currentTimeMillis, reason })
    })

  const carrier = Carrier.of({
    placeCall: (request) =>
      isE164(request.to)
        ? start(request, script)
        : Effect.fail(
          new CarrierError({ reason: "rejected", message: `${JSON.stringify(request.to)} is not an E.164 number` })
        ),
    hangUp: (callId) =>
      Effect.suspend(() => {
        const call = calls.get(callId)
        if (call === undefined) return Effect.void
        return Deferred.succeed(call.hungUp, undefined).pipe(Effect.andThen(Deferred.await(call.done)))
      }),
    transfer: (callId, to) =>
      Effect.suspend(() => {
        const refuse = (message: string) => Effect.fail(new CarrierError({ reason: "rejected", message }))
        if (!isE164(to)) return refuse(`${JSON.stringify(to)} is not an E.164 number`)
        const call = calls.get(callId)
        if (call === undefined || Deferred.isDoneUnsafe(call.hungUp)) return refuse(`call ${callId} is not in progress`)
        if (!call.answered) return refuse(`call ${callId} is not answered`)
        if (Deferred.isDoneUnsafe(call.transferred)) return refuse(`call ${callId} is already transferred`)
        if (outcomeFor(to) === "carrier-failure") return refuse(`destination ${to} is unreachable`)
        return Deferred.succeed(call.transferred, to).pipe(Effect.asVoid)
      }),
    sendSms: (message) =>
      outcomeFor(message.to) === "carrier-failure"
        ? Effect.fail(new CarrierError({ reason: "rejected", message: `destination ${message.to} is unreachable` }))
        : Effect.sync(() => ({ messageId: `SM${hex32()}`, status: "queued" }))
  })
  const simulator = InboundSimulator.of({ callIn: (request) => Effect.asVoid(start(request, inboundScript)) })
  return { carrier, simulator } satisfies Simulated
})

/**
 * The simulated `Carrier` with its default options (the carrier detects answering machines).
 *
 * @category constructors
 */
export const makeWithSimulator: Effect.Effect<Simulated, never, CallEvents | Scope.Scope> = makeWith({})

/**
 * The simulated `Carrier` alone.
 *
 * @category constructors
 */
export const make: Effect.Effect<Carrier["Service"], never, CallEvents | Scope.Scope> = Effect.map(
  makeWithSimulator,
  ({ carrier }) => carrier
)

/**
 * The simulated carrier with `options` as a layer, with its inbound callers. It streams media
 * when a `MediaConnector` is in the context it is built in (not a requirement: without one,
 * calls carry no audio, and with `machineDetection: "engine"` nothing can tell a machine).
 *
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<Carrier | InboundSimulator, never, CallEvents> =>
  Layer.effectContext(
    Effect.map(
      makeWith(options),
      ({ carrier, simulator }) => Context.make(Carrier, carrier).pipe(Context.add(InboundSimulator, simulator))
    )
  )

/**
 * The simulated carrier as a layer, with its default options.
 *
 * @category layers
 */
export const layer: Layer.Layer<Carrier | InboundSimulator, never, CallEvents> = layerWith({})
