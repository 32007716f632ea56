/**
 * A SIP trunk as the `Carrier` port (CONTRACT §8): calls placed through a `SipCalls` user agent,
 * their media carried in RTP and served by the engine's media session (`SipMedia`), their
 * progress published to `CallEvents` under our call id.
 *
 * `placeCall` refuses what a trunk would not take (a `to` that is not E.164) and a call id
 * already in a call here (`rejected`), binds the call's RTP port pair (`RtpPorts`; none free:
 * `rate-limited`, so the dialer tries again later), and returns at once with the INVITE's
 * Call-ID as the carrier's id; the call runs on a fiber of the carrier's scope:
 *
 * - INVITE (`OutboundCall.dial`) with our offer on that port; a 180 or 183 publishes `Ringing`.
 * - Not answered: `Ended` with `DialFailed`'s outcome (486/600/603 `busy`; 408/480 and the ring
 *   timeout `no-answer`; other finals, or no answer from the trunk, `failed`), the trunk's
 *   status and reason logged by `OutboundCall`.
 * - Answered: `Answered` with `answeredBy: "unknown"` (a trunk cannot tell machines; the engine
 *   decides from the first seconds of audio), then the `RtpSession` opened on the bound ports
 *   with the answer's SDP and the answer as its timeline's origin, served by `SipMedia.serve`
 *   with the request's media token; re-INVITEs (`Reinvited`: hold, a new codec or address) go
 *   to `rtp.update`. The call ends with its dialog: a BYE from the trunk is `remote-hangup`;
 *   ours (`hangUp`, the media session closing its end when the agent hangs up or the stream is
 *   refused, a session timer expiring) `local-hangup`. The session runs with this carrier as
 *   its `Carrier`, so its agent's transfer is a REFER in this dialog. After `Ended` the media session has
 *   `drainMs` to hear `Stop` and report its verdict before the RTP session closes.
 *
 * `hangUp(callId)`: while ringing, the dial is abandoned (CANCEL) and `Ended` is `local-hangup`;
 * once answered, BYE; returns once `Ended` is published. A call not (or no longer) here is no
 * error. Closing the carrier's scope ends every call (their BYEs are `SipCalls`').
 *
 * Transfers (`Carrier.transfer`, CONTRACT §8; also `SipCarrier.transfer`, which answers the
 * target's final status): REFER in the call's dialog to `sip:<target>@<trunk>` (RFC 3515, its
 * NOTIFYs followed), BYE once the target answered (`Ended` `local-hangup`: the call left us);
 * a refused or failed transfer (`TransferFailed`) keeps the call and fails `rejected` with the
 * trunk's status and reason.
 *
 * SMS: a SIP trunk carries none; `sendSms` fails `rejected`.
 *
 * Inbound calls: `decide` is `SipCalls.Options.decide` (the daemon builds the user agent with
 * it and `owns: () => true`, as the engine knows the numbers). When the context the carrier is
 * built in has the engine's `InboundCalls`, an INVITE is offered to it: `Accepted` binds a port
 * pair and answers with our SDP; the call, once ACKed (`SipCalls.inbound`, read here), is served
 * as an answered outbound call (`Answered` `human`, then its media and its end, under the
 * accepted call id, with its media token; `hangUp` ends it); `NotOurs` is refused 404,
 * `Declined` 603, no free port 503 (`Ended` `failed`), and without `InboundCalls` every INVITE
 * 480. An answer whose ACK never comes (cancelled as it was answered; `InboundCall` hangs up
 * after 64·T1) is given up after `inboundAckWaitMs` with `Ended` `remote-hangup`.
 *
 * @since 0.1.0
 */
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { AnsweredBy, CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Carrier, CarrierError } from "@voice-agent/core/ports/Carrier"
import type { PlaceCallRequest } from "@voice-agent/core/ports/Carrier"
import type { AcceptedCall } from "@voice-agent/core/ports/InboundCalls"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import * as Tracing from "@voice-agent/core/Tracing"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Option, Queue, Scope, Stream } from "effect"
import { randomInt } from "node:crypto"
import type * as Call from "./Call.ts"
import type * as InboundCall from "./InboundCall.ts"
import * as OutboundCall from "./OutboundCall.ts"
import * as RtpPorts from "./RtpPorts.ts"
import * as RtpSession from "./RtpSession.ts"
import type * as Sdp from "./Sdp.ts"
import * as SipCalls from "./SipCalls.ts"
import type * as SipConfig from "./SipConfig.ts"
import * as SipMedia from "./SipMedia.ts"
import type * as SipTransport from "./SipTransport.ts"

/**
 * @category models
 */
export interface Options {
  readonly config: Pick<SipConfig.SipConfig, "listen" | "publicAddress" | "rtpPorts">
  /** The user agent facing the trunk. */
  readonly calls: SipCalls.SipCalls
  /** How long the media session has after the call's end to report its verdict; default 5,000 ms. */
  readonly drainMs?: number
  /** How long an answered inbound call may take to arrive (its ACK) before it is given up; default 40,000 ms. */
  readonly inboundAckWaitMs?: number
}

/**
 * The carrier, its transfer with the target's status, and the inbound decision.
 *
 * @category models
 */
export interface SipCarrier {
  readonly carrier: Carrier["Service"]
  /**
   * Hands the answered call `callId` over to `target` (E.164) by REFER, then hangs up; the
   * target's final status. A transfer that fails keeps the call.
   */
  readonly transfer: (
    callId: string,
    target: string
  ) => Effect.Effect<{ readonly status: number; readonly reason: string }, CarrierError>
  /**
   * `SipCalls.Options.decide` for inbound INVITEs (with `owns: () => true`: the engine's
   * `InboundCalls` knows the numbers): the call accepted, our media bound, or the refusal.
   */
  readonly decide: (invite: InboundCall.Invite) => Effect.Effect<InboundCall.Decision>
}

/** A call of ours in progress. */
interface LiveCall {
  readonly sipCallId: string
  /** Completed by `hangUp`. */
  readonly hungUp: Deferred.Deferred<void>
  /** Completed once the call's `Ended` is published (or its script is over). */
  readonly reported: Deferred.Deferred<void>
  /** The dialog, once answered. */
  call: Call.Call | undefined
}

/**
 * The carrier over `options.calls`, its calls running in the scope it is built in.
 *
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<SipCarrier, never, CallEvents | SipMedia.MediaSessions | Scope.Scope> =>
  Effect.gen(function*() {
    const events = yield* CallEvents
    const sessions = yield* SipMedia.MediaSessions
    const layerScope = yield* Effect.scope
    const { config, calls: ua } = options
    const drainMs = options.drainMs ?? 5000
    const inboundAckWaitMs = options.inboundAckWaitMs ?? 40_000
    const inbound = yield* Effect.serviceOption(InboundCalls)
    const live = new Map<string, LiveCall>()

    const localOf = (ports: RtpPorts.RtpPorts): Sdp.Local => ({
      address: config.publicAddress,
      port: ports.port,
      sessionId: String(randomInt(1, 2 ** 47)),
      version: 1
    })

    /** The call from the INVITE to `Ended`; its RTP ports and session in `scope`. */
    const script = (request: PlaceCallRequest, call: LiveCall, ports: RtpPorts.RtpPorts, scope: Scope.Closeable) =>
      Effect.gen(function*() {
        const publish = (event: CallEvent) => events.publish(request.callId, event)
        const end = (reason: Extract<CallEvent, { _tag: "Ended" }>["reason"]) =>
          Effect.flatMap(Clock.currentTimeMillis, (at) => publish({ _tag: "Ended", at, reason }))
        const local = localOf(ports)
        const dialled = yield* Effect.raceFirst(
          Effect.result(ua.dial({
            to: request.to,
            from: request.from,
            local,
            callId: call.sipCallId,
            onProgress: (progress) =>
              progress.status === 180 || progress.status === 183
                ? Effect.flatMap(Clock.currentTimeMillis, (at) => publish({ _tag: "Ringing", at }))
                : Effect.void
          })),
          // hung up while ringing: the dial is interrupted, which sends CANCEL
          Effect.as(Deferred.await(call.hungUp), undefined)
        )
        if (dialled === undefined) return yield* end("local-hangup")
        if (dialled._tag === "Failure") return yield* end(dialled.failure.outcome)
        call.call = dialled.success
        yield* answered(request.callId, request.mediaToken, call, ports, scope, "unknown")
      })

    /** An answered call, from `Answered` to `Ended`: its media served, its end published. */
    const answered = (
      callId: string,
      token: string,
      call: LiveCall,
      ports: RtpPorts.RtpPorts,
      scope: Scope.Closeable,
      answeredBy: AnsweredBy
    ) =>
      Effect.gen(function*() {
        const dialog = call.call!
        const answeredAt = yield* Clock.currentTimeMillis
        yield* events.publish(callId, { _tag: "Answered", at: answeredAt, answeredBy })
        const rtp = yield* RtpSession.make({
          host: config.listen.host,
          ports: config.rtpPorts,
          bound: ports,
          remote: dialog.remote(),
          originMs: answeredAt
        }).pipe(Scope.provide(scope), Effect.orDie) // the ports are bound: it cannot run out of them

        // Re-INVITEs move, hold or recode the media.
        yield* Stream.fromQueue(dialog.events).pipe(
          Stream.runForEach((event) =>
            event._tag === "Reinvited" ? rtp.update({ ...event.negotiated, held: event.held }) : Effect.void
          ),
          Effect.forkIn(scope)
        )
        yield* Deferred.await(call.hungUp).pipe(Effect.andThen(dialog.hangup), Effect.forkIn(scope))
        const media = yield* SipMedia.serve({
          rtp,
          callId: call.sipCallId,
          token,
          ended: Effect.asVoid(dialog.ended),
          hangUp: dialog.hangup
        }).pipe(
          // a session over without closing its end leaves no one on our side: hang up
          Effect.andThen(dialog.hangup),
          Effect.provideService(SipMedia.MediaSessions, sessions),
          // the session's agent transfers through this carrier (`AgentCall.transfer`)
          Effect.provideService(Carrier, carrier),
          Effect.forkIn(scope)
        )
        const ended = yield* dialog.ended
        yield* events.publish(callId, {
          _tag: "Ended",
          at: yield* Clock.currentTimeMillis,
          reason: ended.by === "remote" ? "remote-hangup" : "local-hangup"
        })
        yield* Deferred.succeed(call.reported, undefined)
        // The session hears `Stop` and reports its verdict before the RTP session closes.
        yield* Fiber.await(media).pipe(Effect.timeoutOption(drainMs))
      })

    /** Runs a call's `run` on a fiber of the carrier's scope; when it ends, the call is gone. */
    const start = (callId: string, call: LiveCall, scope: Scope.Closeable, run: Effect.Effect<void>) =>
      run.pipe(
        Effect.catchCause((cause) => Effect.logError(`SIP call ${call.sipCallId} (${callId}) failed`, cause)),
        // The carrier's side of the call is not the engine's: a trace of its own (core Tracing).
        Tracing.apart("carrier-sip.call", callId),
        Effect.ensuring(Effect.gen(function*() {
          if (live.get(callId) === call) live.delete(callId)
          yield* Deferred.succeed(call.reported, undefined)
          yield* Scope.close(scope, Exit.void)
        })),
        Effect.forkIn(layerScope)
      )

    /** A port pair in `scope`, or `rate-limited` (the scope closed). */
    const bindPorts = (scope: Scope.Closeable) =>
      RtpPorts.allocate(config.listen.host, config.rtpPorts).pipe(
        Scope.provide(scope),
        Effect.catchTag("RtpPortsExhausted", (error) =>
          Effect.andThen(
            Scope.close(scope, Exit.void),
            Effect.fail(new CarrierError({ reason: "rate-limited", message: error.message }))
          ))
      )

    const newCall = (sipCallId: string) =>
      Effect.gen(function*() {
        const call: LiveCall = {
          sipCallId,
          hungUp: yield* Deferred.make<void>(),
          reported: yield* Deferred.make<void>(),
          call: undefined
        }
        return call
      })

    const placeCall = Effect.fn("SipCarrier.placeCall")(function*(request: PlaceCallRequest) {
      if (!isE164(request.to)) {
        return yield* new CarrierError({
          reason: "rejected",
          message: `${JSON.stringify(request.to)} is not an E.164 number`
        })
      }
      if (live.has(request.callId)) {
        return yield* new CarrierError({ reason: "rejected", message: `call ${request.callId} is already in progress` })
      }
      const scope = yield* Scope.fork(layerScope)
      const ports = yield* bindPorts(scope)
      const call = yield* newCall(OutboundCall.newCallId(config.publicAddress))
      live.set(request.callId, call)
      yield* start(request.callId, call, scope, script(request, call, ports, scope))
      return { carrierCallId: call.sipCallId }
    }, Effect.uninterruptible)

    /** Inbound INVITEs answered, awaiting their ACK, by Call-ID. */
    const pending = new Map<string, {
      readonly accepted: AcceptedCall
      readonly call: LiveCall
      readonly ports: RtpPorts.RtpPorts
      readonly scope: Scope.Closeable
      readonly arrived: Deferred.Deferred<void>
    }>()

    // Uninterruptible: a call accepted by the engine is always followed to its `Ended`.
    const decide = (invite: InboundCall.Invite): Effect.Effect<InboundCall.Decision> =>
      Effect.gen(function*() {
        if (Option.isNone(inbound)) {
          return { _tag: "Reject", status: 480, reason: "No inbound calls here" } as const
        }
        const answer = yield* inbound.value.accept({ from: invite.from ?? "", to: invite.to })
        if (answer._tag === "NotOurs") return { _tag: "Reject", status: 404, reason: "Not Found" } as const
        if (answer._tag === "Declined") return { _tag: "Reject", status: 603, reason: "Declined" } as const
        const accepted = answer.call
        const sipCallId = invite.incoming.request.callId
        const scope = yield* Scope.fork(layerScope)
        const ports = yield* Effect.result(bindPorts(scope))
        if (ports._tag === "Failure") {
          yield* Effect.logWarning(`SIP call ${sipCallId} (${accepted.callId}): ${ports.failure.message}; 503`)
          yield* events.publish(accepted.callId, {
            _tag: "Ended",
            at: yield* Clock.currentTimeMillis,
            reason: "failed"
          })
          return { _tag: "Reject", status: 503, reason: "No RTP port free" } as const
        }
        const call = yield* newCall(sipCallId)
        const arrived = yield* Deferred.make<void>()
        live.set(accepted.callId, call)
        pending.set(sipCallId, { accepted, call, ports: ports.success, scope, arrived })
        // Cancelled as it was answered, or never ACKed: the call never comes (`InboundCall`).
        yield* start(
          accepted.callId,
          call,
          scope,
          Effect.raceFirst(
            Deferred.await(arrived).pipe(Effect.andThen(Effect.never)),
            Effect.sleep(inboundAckWaitMs).pipe(Effect.andThen(Effect.gen(function*() {
              pending.delete(sipCallId)
              yield* events.publish(accepted.callId, {
                _tag: "Ended",
                at: yield* Clock.currentTimeMillis,
                reason: "remote-hangup"
              })
            })))
          )
        )
        return { _tag: "Answer", local: localOf(ports.success) } as const
      }).pipe(Effect.uninterruptible)

    // Answered inbound calls: served like an answered outbound call.
    if (Option.isSome(inbound)) {
      yield* Effect.forkIn(
        Effect.forever(Effect.gen(function*() {
          const dialog = yield* Queue.take(ua.inbound)
          const entry = pending.get(dialog.callId)
          if (entry === undefined) {
            yield* Effect.logWarning(`SIP call ${dialog.callId}: answered but no longer expected; hanging up`)
            yield* Effect.forkIn(dialog.hangup, layerScope)
            return
          }
          pending.delete(dialog.callId)
          entry.call.call = dialog
          yield* Deferred.succeed(entry.arrived, undefined)
          yield* start(
            entry.accepted.callId,
            entry.call,
            entry.scope,
            answered(entry.accepted.callId, entry.accepted.mediaToken, entry.call, entry.ports, entry.scope, "human")
          )
        })),
        layerScope
      )
    }

    const hangUp = (callId: string) =>
      Effect.suspend(() => {
        const call = live.get(callId)
        if (call === undefined) return Effect.logDebug(`SIP: no call ${callId} in progress here, nothing to hang up`)
        return Effect.andThen(Deferred.succeed(call.hungUp, undefined), Deferred.await(call.reported))
      })

    const transfer = Effect.fn("SipCarrier.transfer")(function*(callId: string, target: string) {
      const dialog = live.get(callId)?.call
      if (dialog === undefined) {
        return yield* new CarrierError({ reason: "rejected", message: `call ${callId} is not answered here` })
      }
      if (!isE164(target)) {
        return yield* new CarrierError({
          reason: "rejected",
          message: `${JSON.stringify(target)} is not an E.164 number`
        })
      }
      const done = yield* dialog.refer(ua.uriOf(target)).pipe(
        Effect.mapError((error) => new CarrierError({ reason: "rejected", message: error.message }))
      )
      yield* hangUp(callId)
      return done
    })

    const carrier = Carrier.of({
      placeCall,
      hangUp,
      transfer: (callId, to) => Effect.asVoid(transfer(callId, to)),
      sendSms: (message) =>
        Effect.fail(
          new CarrierError({
            reason: "rejected",
            message: `a SIP trunk carries no SMS: the message to ${message.to} was not sent`
          })
        )
    })
    return { carrier, transfer, decide } satisfies SipCarrier
  })

/**
 * The user agent for `config` and the carrier over it, inbound INVITEs going to the carrier's
 * `decide` (`owns: () => true`: the engine's `InboundCalls` knows the numbers). What the daemon
 * builds for `VOICE_AGENT_CARRIER=sip`; `timers` for tests.
 *
 * @category constructors
 */
export const makeWithUserAgent = (
  config: SipConfig.SipConfig,
  options: Omit<Options, "config" | "calls"> & { readonly timers?: SipCalls.Options["timers"] } = {}
): Effect.Effect<
  SipCarrier & { readonly calls: SipCalls.SipCalls },
  SipTransport.SipTransportError,
  CallEvents | SipMedia.MediaSessions | Scope.Scope
> =>
  Effect.gen(function*() {
    let carrier: SipCarrier | undefined
    const { timers, ...rest } = options
    const calls = yield* SipCalls.make({
      config,
      owns: () => true,
      // the carrier is built right after the user agent; an INVITE in between is told to retry
      decide: (invite) =>
        carrier === undefined
          ? Effect.succeed({ _tag: "Reject", status: 503, reason: "Starting" } as const)
          : carrier.decide(invite),
      ...(timers === undefined ? {} : { timers })
    })
    carrier = yield* make({ ...rest, config, calls })
    return { ...carrier, calls }
  })

/**
 * The carrier for `config` as a layer (`makeWithUserAgent`), with the engine's `InboundCalls`
 * when the context has it.
 *
 * @category layers
 */
export const layer = (
  config: SipConfig.SipConfig
): Layer.Layer<Carrier, SipTransport.SipTransportError, CallEvents | SipMedia.MediaSessions> =>
  Layer.effect(Carrier, Effect.map(makeWithUserAgent(config), ({ carrier }) => carrier))
