/**
 * Twilio's webhook routes (docs/TWILIO.md), which a program using the Twilio carrier mounts on its
 * HTTP router (the daemon does when `VOICE_AGENT_CARRIER=twilio`):
 *
 * - `POST /carrier/twilio/voice`: a call we placed was answered (`?call_id=` ours, with the
 *   answering machine detection's `AnsweredBy`: published as `Answered`), or a call comes in to
 *   one of our numbers (`InboundCalls`). Answered with TwiML that connects the call's media
 *   stream to the media endpoint (`mediaUrl`) with the call's token (`StreamTokens`); an incoming call to a number no
 *   organization owns, or that the SDK agents declined (recorded, never answered), is
 *   rejected; a call of ours that is unknown or over gets an empty document (Twilio hangs up).
 *   Twilio's `CallSid` is linked to our call (`CarrierCalls`) before the answer.
 * - `POST /carrier/twilio/status`: call progress, published to `CallEvents` (`Ringing` and
 *   `Ended`; `Answered` comes from the voice request, which carries the detection's verdict a
 *   status callback may lack), and the final callback's `CallDuration`, which becomes the
 *   call's `duration_sec` (`CarrierCalls`). The call is ours by `?call_id=` (the callbacks of
 *   calls we place), or else by its `CallSid` (a number's console status callback URL, which
 *   hears incoming calls). A `CallSid` we do not know (a call to a number nobody here owns, a
 *   call of another application on the account) is acknowledged and logged, never refused:
 *   Twilio would log an error for each one.
 * - `POST /carrier/twilio/sms`: an incoming SMS, stored once per `MessageSid` (a retried
 *   delivery stores nothing more), listed by `GET /v1/messages`, and announced once to the
 *   organization's event webhooks (`message.received`).
 * - `POST /carrier/twilio/sms-status`: a sent message's delivery status.
 *
 * Every request is verified first: `X-Twilio-Signature` over `VOICE_AGENT_PUBLIC_URL` + the
 * request's path and query, with all the posted parameters. A request without a valid signature
 * is 403 and changes nothing; a signed one whose body lacks what it needs is 400. Bodies over
 * `maxBodyBytes` are 413.
 *
 * @since 0.1.0
 */
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { CarrierCalls } from "@voice-agent/core/ports/CarrierCalls"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import { MessageRepository } from "@voice-agent/core/ports/MessageRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import * as Webhook from "@voice-agent/core/Webhook"
import { ByteSize, Clock, Context, Effect, Layer, Option, Result } from "effect"
import type { Redacted as RedactedType } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as TwilioSignature from "./TwilioSignature.ts"
import * as TwilioWebhooks from "./TwilioWebhooks.ts"
import * as TwiML from "./TwiML.ts"

/**
 * What the webhooks need of the Twilio settings.
 *
 * @category models
 */
export interface TwilioWebhookSettings {
  readonly authToken: RedactedType.Redacted
  /** `VOICE_AGENT_PUBLIC_URL`, without a trailing slash. */
  readonly publicUrl: string
  /** The media WebSocket URL calls stream to (waited for: a daemon knows its own once it listens). */
  readonly mediaUrl: Effect.Effect<string>
}

/**
 * The tokens a media stream presents in its `start` message (the engine's media tokens).
 *
 * @category services
 */
export class StreamTokens extends Context.Service<StreamTokens, {
  /** A token good for `callId`'s stream until `expiresAtMs`. */
  readonly sign: (callId: string, expiresAtMs: number) => Effect.Effect<string>
}>()("@voice-agent/carrier-twilio/TwilioRoutes/StreamTokens") {}

/**
 * The largest webhook body read (Twilio's are a few kilobytes).
 *
 * @category constructors
 */
export const maxBodyBytes = 64 * 1024

/** How long a stream's token is good for after the voice request. */
const streamTokenMs = 60_000

const detail = (status: number, text: string) => HttpServerResponse.jsonUnsafe({ detail: text }, { status })
const twiml = (document: string) => HttpServerResponse.text(document, { contentType: TwiML.contentType })

/** Whether a text can be looked up or stored (PostgreSQL refuses the NUL character in text). */
const storable = (text: string): boolean => !text.includes("\u0000")

/** The posted parameters, if the request is Twilio's; otherwise the answer to give. */
const verified = ({ authToken, publicUrl }: TwilioWebhookSettings) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const length = Number(request.headers["content-length"] ?? "0")
    if (length > maxBodyBytes) return Result.fail(detail(413, "Webhook body too large"))
    // A body sent without a length (chunked) is read no further than the limit either.
    const body = yield* request.text.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes)),
      Effect.orElseSucceed(() => undefined)
    )
    if (body === undefined && request.headers["content-length"] === undefined) {
      return Result.fail(detail(413, "Webhook body too large"))
    }
    if (body === undefined || body.length > maxBodyBytes) return Result.fail(detail(400, "Unreadable webhook body"))
    const params = TwilioWebhooks.parseForm(body)
    const url = `${publicUrl}${request.url}`
    if (!TwilioSignature.validate(authToken, request.headers["x-twilio-signature"], url, params)) {
      yield* Effect.logWarning(`Twilio webhook ${request.url.split("?")[0]} refused: invalid signature`)
      return Result.fail(detail(403, "Invalid Twilio signature"))
    }
    return Result.succeed({ params, query: new URL(url).searchParams })
  })

/** A route that runs `handle` on a verified, decoded body. */
const route = <A, R>(
  settings: TwilioWebhookSettings,
  path: HttpRouter.PathInput,
  decode: (params: TwilioSignature.Params) => Result.Result<A, TwilioWebhooks.TwilioWebhookError>,
  handle: (body: A, query: URLSearchParams) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
) =>
  HttpRouter.add(
    "POST",
    path,
    Effect.gen(function*() {
      const checked = yield* verified(settings)
      if (Result.isFailure(checked)) return checked.failure
      const decoded = decode(checked.success.params)
      if (Result.isFailure(decoded)) return detail(400, decoded.failure.message)
      return yield* handle(decoded.success, checked.success.query)
    })
  )

const voice = (settings: TwilioWebhookSettings, tokens: StreamTokens["Service"]) =>
  route(
    settings,
    "/carrier/twilio/voice",
    TwilioWebhooks.decodeVoiceRequest,
    (request, query) =>
      Effect.gen(function*() {
        const mediaUrl = yield* settings.mediaUrl
        const now = yield* Clock.currentTimeMillis
        const callId = query.get("call_id")
        const carrierCalls = yield* CarrierCalls
        if (callId === null) {
          const answer = yield* (yield* InboundCalls).accept({ from: request.From, to: request.To })
          switch (answer._tag) {
            case "NotOurs":
              return twiml(TwiML.reject)
            case "Declined":
              yield* carrierCalls.link(answer.callId, request.CallSid)
              return twiml(TwiML.reject)
            case "Accepted": {
              const call = answer.call
              yield* carrierCalls.link(call.callId, request.CallSid)
              return twiml(TwiML.connectStream({ url: call.mediaUrl, parameters: { token: call.mediaToken } }))
            }
          }
        }
        // An id the database cannot even hold (NUL) is no call of ours.
        if (!storable(callId)) return twiml(TwiML.empty)
        const found = yield* (yield* ConversationRepository).callContext(callId)
        if (Option.isNone(found) || found.value.conversation.endedAt !== null) return twiml(TwiML.empty)
        yield* carrierCalls.link(callId, request.CallSid)
        const event = TwilioWebhooks.answered(request, now)
        if (Option.isSome(event)) yield* (yield* CallEvents).publish(callId, event.value)
        const token = yield* tokens.sign(callId, now + streamTokenMs)
        return twiml(TwiML.connectStream({ url: mediaUrl, parameters: { token } }))
      })
  )

const status = (settings: TwilioWebhookSettings) =>
  route(
    settings,
    "/carrier/twilio/status",
    TwilioWebhooks.decodeStatusCallback,
    (callback, query) =>
      Effect.gen(function*() {
        const carrierCalls = yield* CarrierCalls
        const given = query.get("call_id")
        // Our own callback URLs are signed: an id in one that the database cannot hold is no call of ours.
        if (given !== null && !storable(given)) return detail(400, "Malformed query parameter call_id")
        const callId = given ?? Option.getOrNull(yield* carrierCalls.callIdOf(callback.CallSid))
        if (callId === null) {
          yield* Effect.logInfo(
            `Twilio status callback for call ${callback.CallSid} (${callback.CallStatus}): not a call of ours, acknowledged`
          )
          return HttpServerResponse.empty({ status: 204 })
        }
        if (given !== null) yield* carrierCalls.link(callId, callback.CallSid)
        // Recorded before `Ended` is published, so that the end of the call already finds it.
        const duration = TwilioWebhooks.callDuration(callback)
        if (Option.isSome(duration)) yield* carrierCalls.recordDuration(callId, duration.value)
        const event = TwilioWebhooks.callEvent(callback, yield* Clock.currentTimeMillis)
        if (Option.isSome(event) && event.value._tag !== "Answered") {
          yield* (yield* CallEvents).publish(callId, event.value)
        }
        return HttpServerResponse.empty({ status: 204 })
      })
  )

const sms = (settings: TwilioWebhookSettings) =>
  route(settings, "/carrier/twilio/sms", TwilioWebhooks.decodeIncomingMessage, (message) =>
    Effect.gen(function*() {
      const to = message.To
      const owner = isE164(to) ? yield* (yield* PhoneNumberRepository).findOwner(to) : Option.none()
      if (Option.isNone(owner)) {
        yield* Effect.logWarning(`Incoming SMS ${message.MessageSid} to ${to}: not one of our numbers, ignored`)
        return twiml(TwiML.empty)
      }
      const stored = yield* (yield* MessageRepository).receive({
        organizationId: owner.value.organizationId,
        direction: "inbound",
        modality: "sms",
        fromNumber: message.From,
        toNumber: to,
        content: message.Body,
        receivedAt: new Date(yield* Clock.currentTimeMillis),
        status: "received"
      }, message.MessageSid)
      if (stored.created) {
        yield* Webhook.emitMessageReceived(stored.message)
        yield* Effect.logInfo(`Incoming SMS ${message.MessageSid} to ${to} stored`)
      }
      return twiml(TwiML.empty)
    }))

const smsStatus = (settings: TwilioWebhookSettings) =>
  route(
    settings,
    "/carrier/twilio/sms-status",
    TwilioWebhooks.decodeMessageStatusCallback,
    (callback) =>
      Effect.gen(function*() {
        yield* (yield* MessageRepository).updateStatus(callback.MessageSid, callback.MessageStatus)
        return HttpServerResponse.empty({ status: 204 })
      })
  )

/**
 * The four webhook routes.
 *
 * @category layers
 */
export const routes = (settings: TwilioWebhookSettings) => {
  const checked = { ...settings, publicUrl: settings.publicUrl.replace(/\/+$/, "") }
  return Layer.unwrap(Effect.gen(function*() {
    const tokens = yield* StreamTokens
    return Layer.mergeAll(voice(checked, tokens), status(checked), sms(checked), smsStatus(checked))
  }))
}
