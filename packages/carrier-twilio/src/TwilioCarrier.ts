/**
 * Twilio as the `Carrier` port: calls and messages through Twilio's REST API (TwilioRest), the
 * calls' progress coming back through Twilio's webhooks to the daemon (TwilioWebhooks), not
 * through this module.
 *
 * `placeCall` asks Twilio to call `to` from `from` with `Url` = `<publicUrl>/carrier/twilio/voice
 * ?call_id=<callId>` (Twilio requests it once the call is answered; the daemon answers with
 * TwiML's `<Connect><Stream>` to the media URL, the call's token as a `<Parameter>`), with
 * `StatusCallback` = `<publicUrl>/carrier/twilio/status?call_id=<callId>` for the events
 * `initiated`, `ringing`, `answered` and `completed`, `MachineDetection=Enable` (Twilio decides
 * human or machine before requesting `Url`, which then carries `AnsweredBy`) and `Timeout` =
 * `ringTimeoutSec` (60 by default, Twilio's own). The request's `mediaUrl` and `mediaToken` do
 * not travel with the call: the voice webhook, on whichever daemon it lands, answers the
 * daemon's media URL and signs a token for the `call_id` it is given (the token key is shared by
 * every daemon of an installation), so no daemon has to remember them. It answers Twilio's call
 * SID as `carrierCallId`. The REST request is not interrupted once sent: a call Twilio created
 * is always known to `hangUp`, even when whoever placed it was interrupted meanwhile.
 *
 * `hangUp(callId)` needs Twilio's call SID, so the carrier remembers our call id -> SID of each
 * call it placed, in memory, until the call ends: it follows each call's `CallEvents` (subscribed
 * before Twilio is asked) and forgets it at its `Ended`, wherever that was reported; at its own
 * successful hang-up; or after `maxCallMs` (4 h, Twilio's default `TimeLimit`) at the latest. So
 * the memory holds the calls in progress and no more. Hanging up posts `Status=completed`; once
 * Twilio has accepted it, the carrier reports `Ended` `local-hangup` itself (at `Clock`'s now),
 * so the call's end is ours whatever the `completed` or `canceled` callback says later
 * (`CallEvents` keeps a call's first `Ended`). A call Twilio reports already ended is no error
 * and reports nothing (its callbacks say how it ended). A call id it does not know (never placed
 * by this process, already ended, or placed before a restart) is no error either: it is logged
 * and nothing is asked. After a restart the memory is empty: calls in progress then end on their
 * own: an answered call's media stream closes with the process that held it, and Twilio ends a
 * `<Connect><Stream>` call whose stream closes; a call still ringing rings until `Timeout`, and
 * if it is answered, its stream is served only while its call is live on some daemon (the
 * engine's MediaSession refuses a call that is unknown or has ended), and a refused stream ends
 * it too.
 *
 * `transfer(callId, to)` updates the live call to `<Dial>` `to` (`Twiml` on the call's
 * resource, TwiML `dial`): Twilio stops the call's media stream and bridges the person to the
 * target; the call stays Twilio's until that conversation ends (its `completed` callback comes
 * then). The call's SID is the one this process placed it under, or else the one its voice
 * webhook linked to it (`CarrierCalls`: an inbound call, or one another daemon placed). A call
 * with no SID known, a target that is not E.164, or a call Twilio cannot update (not in
 * progress) is `rejected`, and the call goes on as it was.
 *
 * `sendSms` posts the message with `StatusCallback` = `<publicUrl>/carrier/twilio/sms-status`
 * and answers Twilio's message SID and status (`queued`, usually).
 *
 * Failures are TwilioRest's `CarrierError`s. `unreachable` on `placeCall` may hide a call that
 * Twilio created all the same (the request reached it, the answer did not): Twilio has no
 * idempotency key for calls, and the dialer's retry may then place a second one.
 *
 * @since 0.1.0
 */
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier, CarrierError } from "@voice-agent/core/ports/Carrier"
import type { PlaceCallRequest } from "@voice-agent/core/ports/Carrier"
import { CarrierCalls } from "@voice-agent/core/ports/CarrierCalls"
import { Clock, Duration, Effect, Exit, Layer, Option, Scope, Stream } from "effect"
import type { Config } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpClient } from "effect/http"
import * as TwilioConfig from "./TwilioConfig.ts"
import * as TwilioRest from "./TwilioRest.ts"
import * as TwilioUrls from "./TwilioUrls.ts"
import * as TwiML from "./TwiML.ts"

/**
 * @category models
 */
export interface Options {
  readonly accountSid: string
  readonly credentials: TwilioRest.Credentials
  /** `https://api.twilio.com` by default. */
  readonly apiBase?: string | undefined
  /** The daemon's public URL, without a trailing slash. */
  readonly publicUrl: string
  /** How long Twilio lets a call ring (`Timeout`, seconds; 60 by default). */
  readonly ringTimeoutSec?: number | undefined
  /** How long a placed call is remembered at most (4 hours by default). */
  readonly maxCallMs?: number | undefined
  /** How long a REST request may take (15 s by default). */
  readonly requestTimeoutMs?: number | undefined
}

/**
 * The options for a configuration read from the environment.
 *
 * @category constructors
 */
export const optionsFrom = (config: TwilioConfig.TwilioConfig): Options => ({
  accountSid: config.accountSid,
  credentials: TwilioConfig.credentials(config),
  apiBase: config.apiBase,
  publicUrl: config.publicUrl
})

/** A call we placed and have not seen end: Twilio's SID, and the scope of its subscription. */
interface PlacedCall {
  readonly callSid: string
  readonly scope: Scope.Closeable
}

/**
 * The Twilio `Carrier`. Calls are followed in the scope this is built in; closing it forgets
 * them (it hangs none up).
 *
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<Carrier["Service"], never, CallEvents | CarrierCalls | HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const events = yield* CallEvents
    const carrierCalls = yield* CarrierCalls
    const layerScope = yield* Effect.scope
    const rest = yield* TwilioRest.make({
      accountSid: options.accountSid,
      credentials: options.credentials,
      apiBase: options.apiBase,
      timeoutMs: options.requestTimeoutMs
    })
    const maxCall = Duration.millis(options.maxCallMs ?? 4 * 60 * 60 * 1000)
    const calls = new Map<string, PlacedCall>()

    /**
     * Forgets `callId` if it is still `call`, and ends its subscription (which ends its
     * follower, a fiber of the layer's scope, if it is still running).
     */
    const forget = (callId: string, call: PlacedCall) =>
      Effect.suspend(() => {
        if (calls.get(callId) === call) calls.delete(callId)
        return Scope.close(call.scope, Exit.void)
      })

    const placeCall = Effect.fn("TwilioCarrier.placeCall")(function*(request: PlaceCallRequest) {
      if (calls.has(request.callId)) {
        return yield* new CarrierError({ reason: "rejected", message: `call ${request.callId} is already in progress` })
      }
      const scope = yield* Scope.fork(layerScope)
      // subscribed before Twilio is asked, so an `Ended` reported at once is not missed
      const progress = yield* events.subscribe(request.callId).pipe(Scope.provide(scope))
      const created = yield* Effect.exit(rest.createCall({
        to: request.to,
        from: request.from,
        url: TwilioUrls.voiceUrl(options.publicUrl, request.callId),
        statusCallback: TwilioUrls.statusUrl(options.publicUrl, request.callId),
        statusCallbackEvents: ["initiated", "ringing", "answered", "completed"],
        machineDetection: "Enable",
        timeoutSec: options.ringTimeoutSec ?? 60
      }))
      if (Exit.isFailure(created)) {
        yield* Scope.close(scope, Exit.void)
        return yield* Effect.failCause(created.cause)
      }
      const call: PlacedCall = { callSid: created.value, scope }
      calls.set(request.callId, call)
      yield* progress.pipe(
        Stream.takeUntil((event) => event._tag === "Ended"),
        Stream.runDrain,
        Effect.timeoutOption(maxCall),
        Effect.ensuring(forget(request.callId, call)),
        Effect.forkIn(layerScope)
      )
      return { carrierCallId: created.value }
    }, Effect.uninterruptible)

    const hangUp = Effect.fn("TwilioCarrier.hangUp")(function*(callId: string) {
      const call = calls.get(callId)
      if (call === undefined) {
        return yield* Effect.logDebug(`Twilio: no call ${callId} in progress here, nothing to hang up`)
      }
      const result = yield* rest.hangUp(call.callSid)
      if (result === "hung-up") {
        yield* events.publish(callId, { _tag: "Ended", at: yield* Clock.currentTimeMillis, reason: "local-hangup" })
      }
      yield* forget(callId, call)
    })

    const transfer = Effect.fn("TwilioCarrier.transfer")(function*(callId: string, to: string) {
      if (!isE164(to)) {
        return yield* new CarrierError({ reason: "rejected", message: `${JSON.stringify(to)} is not an E.164 number` })
      }
      const placed = calls.get(callId)?.callSid
      const callSid = placed ?? Option.getOrUndefined(yield* carrierCalls.carrierCallIdOf(callId))
      if (callSid === undefined) {
        return yield* new CarrierError({
          reason: "rejected",
          message: `Twilio has no call ${callId} of ours to transfer`
        })
      }
      yield* rest.updateCall(callSid, TwiML.dial(to))
    })

    const sendSms = Effect.fn("TwilioCarrier.sendSms")(function*(message: {
      readonly from: string
      readonly to: string
      readonly body: string
    }) {
      const sent = yield* rest.sendMessage({
        to: message.to,
        from: message.from,
        body: message.body,
        statusCallback: TwilioUrls.smsStatusUrl(options.publicUrl)
      })
      return { messageId: sent.sid, status: sent.status }
    })

    return Carrier.of({ placeCall, hangUp, transfer, sendSms })
  })

/**
 * The carrier on the `HttpClient` of the context (tests, or a client of one's own).
 *
 * @category layers
 */
export const layerNoDeps = (
  options: Options
): Layer.Layer<Carrier, never, CallEvents | CarrierCalls | HttpClient.HttpClient> =>
  Layer.effect(Carrier, make(options))

/**
 * The carrier on the platform's `fetch`.
 *
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Carrier, never, CallEvents | CarrierCalls> =>
  layerNoDeps(options).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * The carrier configured from the environment (TwilioConfig), on the platform's `fetch`.
 *
 * @category layers
 */
export const layerConfig: Layer.Layer<Carrier, Config.ConfigError, CallEvents | CarrierCalls> = Layer.unwrap(
  Effect.gen(function*() {
    return layer(optionsFrom(yield* TwilioConfig.config))
  })
)
