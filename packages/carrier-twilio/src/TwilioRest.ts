/**
 * A client for the requests of Twilio's REST API (2010-04-01) this engine makes
 * (twilio.com/docs/voice/api/call-resource, twilio.com/docs/messaging/api/message-resource): create a call, update a live call's TwiML
 * (a transfer), hang one up, send a message. It runs on
 * `effect/http`'s `HttpClient`, against a configurable base URL (`https://api.twilio.com` by
 * default; a Twilio-compatible fake in tests), and fails only with core's `CarrierError`.
 *
 * Requests: `POST {apiBase}/2010-04-01/Accounts/{AccountSid}/Calls.json`,
 * `…/Calls/{CallSid}.json` and `…/Messages.json`, bodies `application/x-www-form-urlencoded`
 * (a list, repeated keys repeated: one `StatusCallbackEvent` per event), HTTP Basic auth with
 * the account SID and auth token, or with an API key SID and secret (the account SID stays in
 * the path). Each request is given `timeoutMs` (15 s by default) to answer.
 *
 * Failures, by what the caller should do:
 *
 * - `rate-limited` (retryable): HTTP 429, or Twilio error code 20429 in any answer.
 * - `unreachable` (retryable): HTTP 5xx, no answer (transport failure, timeout), or a 2xx
 *   whose body is not the documented JSON. For `createCall` this means the call may have been
 *   placed all the same: Twilio offers no idempotency key for it.
 * - `rejected` (not retryable): any other 4xx, with Twilio's `code` and `message` in the text
 *   (`Twilio refused createCall (HTTP 400, code 21211): Invalid 'To' Phone Number`).
 *
 * `updateCall` (`Twiml=<document>`: Twilio stops what the call runs, its media stream
 * included, and runs the document instead) succeeds once Twilio accepted it; a call that is not
 * in progress (400, code 21220) or that Twilio does not have (404, code 20404) is `rejected`:
 * there is nothing to update.
 *
 * `hangUp` (`Status=completed`, which ends a call that is ringing or in progress) succeeds with
 * `already-ended` for a call Twilio no longer has (404, code 20404) or one no longer in
 * progress (400, code 21220, "Call is not in-progress"), and with `hung-up` otherwise.
 *
 * No secret reaches a message: errors are built from the operation, the status, Twilio's own
 * `code` and `message`, and the transport failure's kind and cause, never from the request or
 * its headers. Owns nothing else: which URLs Twilio calls back, and what calls mean, are
 * TwilioCarrier's.
 *
 * @since 0.1.0
 */
import { CarrierError } from "@voice-agent/core/ports/Carrier"
import { Duration, Effect, Option, Result, Schema } from "effect"
import type { Redacted } from "effect"
import type { HttpClientError, HttpClientResponse } from "effect/http"
import { HttpClient, HttpClientRequest } from "effect/http"

/**
 * Twilio's production API.
 *
 * @category constructors
 */
export const defaultApiBase = "https://api.twilio.com"

/**
 * How requests authenticate: the account's auth token, or an API key (Twilio's recommendation
 * for production: it can be revoked alone).
 *
 * @category models
 */
export type Credentials =
  | { readonly _tag: "AuthToken"; readonly authToken: Redacted.Redacted }
  | { readonly _tag: "ApiKey"; readonly apiKeySid: string; readonly apiKeySecret: Redacted.Redacted }

/**
 * @category models
 */
export interface Options {
  readonly accountSid: string
  readonly credentials: Credentials
  /** Without a trailing slash; a path prefix is kept (`http://127.0.0.1:9999/twilio`). */
  readonly apiBase?: string | undefined
  readonly timeoutMs?: number | undefined
}

/**
 * The progress events a call's status callback is sent for.
 *
 * @category models
 */
export type StatusCallbackEvent = "initiated" | "ringing" | "answered" | "completed"

/**
 * @category models
 */
export interface CreateCall {
  readonly to: string
  readonly from: string
  /** Where Twilio fetches the call's TwiML once it is answered. */
  readonly url: string
  readonly statusCallback: string
  readonly statusCallbackEvents: ReadonlyArray<StatusCallbackEvent>
  readonly machineDetection?: "Enable" | "DetectMessageEnd" | undefined
  /** Seconds to let it ring (Twilio: default 60, at most 600). */
  readonly timeoutSec?: number | undefined
}

/**
 * @category models
 */
export interface SendMessage {
  readonly to: string
  readonly from: string
  readonly body: string
  readonly statusCallback?: string | undefined
}

/**
 * The client.
 *
 * @category models
 */
export interface TwilioRest {
  /** Answers the new call's SID (`CA…`). */
  readonly createCall: (call: CreateCall) => Effect.Effect<string, CarrierError>
  readonly hangUp: (callSid: string) => Effect.Effect<"hung-up" | "already-ended", CarrierError>
  /** Replaces what the live call `callSid` runs with the TwiML document `twiml`. */
  readonly updateCall: (callSid: string, twiml: string) => Effect.Effect<void, CarrierError>
  readonly sendMessage: (
    message: SendMessage
  ) => Effect.Effect<{ readonly sid: string; readonly status: string }, CarrierError>
}

/** Twilio's error body: `{code, message, more_info, status}`. */
const TwilioErrorBody = Schema.Struct({
  code: Schema.optionalKey(Schema.Number),
  message: Schema.optionalKey(Schema.String)
})
const decodeErrorBody = Schema.decodeUnknownOption(Schema.fromJsonString(TwilioErrorBody))

const Created = Schema.Struct({ sid: Schema.NonEmptyString, status: Schema.String })
const decodeCreated = Schema.decodeUnknownResult(Schema.fromJsonString(Created))

type Form = ReadonlyArray<readonly [string, string]>

/** Whether an error answer means that the call is over already (`hangUp`). */
const alreadyEnded = (status: number, code: number | undefined) =>
  (status === 404 && code === 20404) || (status === 400 && code === 21220)

/** An error's message, with the system error code beneath it (`fetch failed (ECONNREFUSED)`). */
const causeText = (cause: unknown): string | undefined => {
  if (!(cause instanceof Error)) return undefined
  const inner: unknown = cause.cause
  const code = typeof inner === "object" && inner !== null && "code" in inner ? String(inner.code) : undefined
  return code === undefined ? cause.message : `${cause.message} (${code})`
}

/** What went wrong on the way: the failure's kind, description and cause (never the request). */
const describeTransport = (error: HttpClientError.HttpClientError): string => {
  const { reason } = error
  return [reason._tag, reason.description, causeText(reason.cause)].filter((part) => part !== undefined && part !== "")
    .join(": ")
}

/**
 * The client for `options`, on the `HttpClient` in context.
 *
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<TwilioRest, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const apiBase = (options.apiBase ?? defaultApiBase).replace(/\/+$/, "")
    const timeout = Duration.millis(options.timeoutMs ?? 15_000)
    const account = `${apiBase}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}`
    const [user, password] = options.credentials._tag === "AuthToken"
      ? [options.accountSid, options.credentials.authToken]
      : [options.credentials.apiKeySid, options.credentials.apiKeySecret]

    /** POSTs `form` to `url`; answers the status and body of any HTTP answer. */
    const post = (operation: string, url: string, form: Form) =>
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.basicAuth(user, password),
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUrlParams(form),
        client.execute,
        Effect.flatMap((response: HttpClientResponse.HttpClientResponse) =>
          Effect.map(response.text, (text) => ({ status: response.status, text }))
        ),
        Effect.mapError((error) =>
          new CarrierError({
            reason: "unreachable",
            message: `Twilio API at ${apiBase} unreachable for ${operation}: ${describeTransport(error)}`
          })
        ),
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () =>
            Effect.fail(
              new CarrierError({
                reason: "unreachable",
                message: `Twilio API at ${apiBase} did not answer ${operation} within ${Duration.format(timeout)}`
              })
            )
        })
      )

    /** The CarrierError for a non-2xx answer. */
    const refused = (operation: string, status: number, text: string): CarrierError => {
      const body = Option.getOrUndefined(decodeErrorBody(text))
      const code = body?.code
      const detail = `(HTTP ${status}${code === undefined ? "" : `, code ${code}`})${
        body?.message === undefined ? "" : `: ${body.message}`
      }`
      if (status === 429 || code === 20429) {
        return new CarrierError({ reason: "rate-limited", message: `Twilio is rate-limiting ${operation} ${detail}` })
      }
      if (status >= 500) {
        return new CarrierError({ reason: "unreachable", message: `Twilio failed ${operation} ${detail}` })
      }
      return new CarrierError({ reason: "rejected", message: `Twilio refused ${operation} ${detail}` })
    }

    /** The created resource's `sid` and `status` from a 2xx answer. */
    const created = (operation: string, status: number, text: string) => {
      if (status < 200 || status > 299) return Effect.fail(refused(operation, status, text))
      const decoded = decodeCreated(text)
      return Result.isSuccess(decoded) ? Effect.succeed(decoded.success) : Effect.fail(
        new CarrierError({
          reason: "unreachable",
          message: `Twilio answered ${operation} with HTTP ${status} but not the documented JSON`
        })
      )
    }

    const createCall = Effect.fn("TwilioRest.createCall")(function*(call: CreateCall) {
      const form: Form = [
        ["To", call.to],
        ["From", call.from],
        ["Url", call.url],
        ["StatusCallback", call.statusCallback],
        ...call.statusCallbackEvents.map((event) => ["StatusCallbackEvent", event] as const),
        ...(call.machineDetection === undefined ? [] : [["MachineDetection", call.machineDetection] as const]),
        ...(call.timeoutSec === undefined ? [] : [["Timeout", String(call.timeoutSec)] as const])
      ]
      const answer = yield* post("createCall", `${account}/Calls.json`, form)
      return (yield* created("createCall", answer.status, answer.text)).sid
    })

    const hangUp = Effect.fn("TwilioRest.hangUp")(function*(callSid: string) {
      const url = `${account}/Calls/${encodeURIComponent(callSid)}.json`
      const answer = yield* post("hangUp", url, [["Status", "completed"]])
      if (answer.status >= 200 && answer.status <= 299) return "hung-up" as const
      const code = Option.getOrUndefined(decodeErrorBody(answer.text))?.code
      if (alreadyEnded(answer.status, code)) return "already-ended" as const
      return yield* Effect.fail(refused("hangUp", answer.status, answer.text))
    })

    const updateCall = Effect.fn("TwilioRest.updateCall")(function*(callSid: string, twiml: string) {
      const url = `${account}/Calls/${encodeURIComponent(callSid)}.json`
      const answer = yield* post("updateCall", url, [["Twiml", twiml]])
      if (answer.status < 200 || answer.status > 299) {
        return yield* Effect.fail(refused("updateCall", answer.status, answer.text))
      }
    })

    const sendMessage = Effect.fn("TwilioRest.sendMessage")(function*(message: SendMessage) {
      const form: Form = [
        ["To", message.to],
        ["From", message.from],
        ["Body", message.body],
        ...(message.statusCallback === undefined ? [] : [["StatusCallback", message.statusCallback] as const])
      ]
      const answer = yield* post("sendMessage", `${account}/Messages.json`, form)
      return yield* created("sendMessage", answer.status, answer.text)
    })

    return { createCall, hangUp, updateCall, sendMessage }
  })
