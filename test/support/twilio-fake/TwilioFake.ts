/**
 * A local fake of Twilio for end-to-end tests: a daemon pointed at it with
 * `TWILIO_API_BASE=<fake.url>` should not be able to tell it from Twilio. Written from Twilio's
 * documented behavior (Twilio's documentation of calls, Media Streams and messages), independently of our adapter.
 *
 * REST (`/2010-04-01/Accounts/{AccountSid}/…`, form-encoded, HTTP Basic auth with the account
 * SID and auth token or an API key SID and secret; JSON answers and Twilio's error JSON
 * `{code, message, more_info, status}`):
 *
 * - `Calls.json` POST creates a call (201, `queued`, `outbound-api`), GET lists; `Calls/{Sid}.json`
 *   GET fetches, POST with `Status=completed|canceled` hangs up or cancels, POST with `Twiml`
 *   (at most 4,000 characters) replaces what a call in progress runs (400 `21220` "Call is not
 *   in-progress. Cannot redirect." otherwise; `Url` redirects are not modeled); 404 `20404` for
 *   an unknown sid.
 * - `Messages.json` POST sends an SMS (201, `queued`; then signed `sent` and `delivered`
 *   callbacks), GET lists; `Messages/{Sid}.json` GET fetches.
 * - `IncomingPhoneNumbers.json` GET lists the account's numbers (`PhoneNumber=` filters);
 *   `IncomingPhoneNumbers/{Sid}.json` GET fetches, POST sets `VoiceUrl`, `VoiceMethod`,
 *   `StatusCallback`, `StatusCallbackMethod`, `SmsUrl`, `SmsMethod` (a number's webhooks).
 * - `throttle(n)`: the next `n` requests are answered 429 `20429`.
 *
 * Calls. The dialed number's last four digits choose what happens (packages/carrier-sim/README.md, through
 * `SimOutcome.outcomeFor`): `initiated` and `ringing` at once (after `timings.queuedMs`, so the
 * REST answer arrives first), then `busy` after `ringMs`, `no-answer` after `noAnswerMs` (or the
 * request's `Timeout` if shorter), `failed` at once, or an answer after `ringMs` by a person or
 * an answering machine (`AnsweredBy` `human`, `machine_start` or, with `DetectMessageEnd`,
 * `machine_end_beep`, when `MachineDetection` was asked; the detection listens for
 * `timings.machineDetectionMs` after the answer, as Twilio's does for a few seconds, before the
 * call's `Url` is requested). An answered call fetches its TwiML
 * (`Url` with `Method`, or the request's `Twiml`), signed, and runs it (see `Twiml.ts`):
 * `<Connect><Stream>` opens the Media Stream WebSocket to the stream's URL (its query string
 * dropped, as Twilio does) with `x-twilio-signature` computed over that `ws(s)://` URL, and
 * plays the simulated carrier's person over it (`SimMediaStream.run` with `SimPerson.behave`:
 * `connected`, `start` with the `<Parameter>`s as `customParameters`, 20 ms μ-law frames, marks
 * and `clear` answered as Twilio does). `<Dial>` bridges the call to its number, whose last four
 * digits say what that leg does (a person talks for `SimOutcome.conversationMs` of it and hangs
 * up; busy after `ringMs`; no answer after `noAnswerMs`; a failure at once), then the call goes
 * on with the next verb. A REST update with `Twiml` stops what runs (a stream gets `stop`, then
 * closes; a `<Dial>` leg is dropped) and runs the new document (`documents`, `dialed` record it).
 * The call ends when the person hangs up, when a REST
 * hang-up comes (`stop`, then the stream closes), or when the TwiML runs out (our side closing
 * the stream moves on to the next verb); then `completed` with `CallDuration`: the fake's own
 * time from the answer to the hang-up, answering machine detection included, in whole seconds
 * rounded up (Twilio counts a completed call shorter than a second as 1 s). A document that cannot be fetched (`11200`) or parsed (`12100`) ends the call, as
 * Twilio's "application error" does.
 *
 * Status callbacks go to the call's `StatusCallback` for the `StatusCallbackEvent`s asked
 * (`completed` only when none is), form-encoded (or as a query with `GET`), with the voice
 * request parameters plus `CallbackSource` `call-progress-events`, `SequenceNumber` (from 0, per
 * callback sent), `Timestamp` (RFC 2822), `CallDuration` and `Duration` on the last one, and
 * `AnsweredBy` once answered with detection on. Each call's callbacks go one at a time, in
 * order. Every request the fake makes carries `X-Twilio-Signature` over the exact URL it
 * requests (§1.4). `holdStatusCallbacks` holds every status callback back until released (they
 * then go in order), to deliver a call's end after our side has seen the call end by itself.
 *
 * Inbound: `incomingCall` runs an incoming call to one of the account's numbers (its voice URL,
 * `Direction` `inbound`, `CallStatus` `ringing`; `<Reject>` first ends it unanswered, `busy` or
 * `no-answer`). A number's `StatusCallback` (the console's "call status changes" URL) hears
 * the end (`completed` event) of every call to that number, with no parameter of ours in its
 * URL, as Twilio posts it; `incomingSms` posts the number's messaging webhook, once or twice (Twilio's
 * retry, same `MessageSid` and idempotency token).
 *
 * Observability: `requests` (the REST requests received), `webhooks` (every request the fake
 * made, with our answer's status and body), `calls()`/`call(sid)` and `messages()` (state
 * snapshots), and `waitFor` to wait on any of them. `forgeWebhook` sends a request that is
 * not Twilio's (unsigned, signed with another token, over another URL, or altered after
 * signing).
 *
 * Deterministic: SIDs come from a counter and `seed`, callbacks of a call go in order, outcomes
 * come from the number. Timing uses the `Clock` of the scope it is made in.
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as SimMediaStream from "@voice-agent/carrier-sim/SimMediaStream"
import type { SimOutcome } from "@voice-agent/carrier-sim/SimOutcome"
import { conversationMs, outcomeFor, timings as simTimings } from "@voice-agent/carrier-sim/SimOutcome"
import * as SimPerson from "@voice-agent/carrier-sim/SimPerson"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import { Clock, Deferred, Duration, Effect, Fiber, Result } from "effect"
import type { Scope } from "effect"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Socket from "effect/socket/Socket"
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import * as TwilioSignature from "./TwilioSignature.ts"
import * as Twiml from "./Twiml.ts"

/**
 * @category models
 */
export type HttpMethod = "GET" | "POST"

/**
 * One of the account's phone numbers and its webhooks (a Twilio number's "A call comes in",
 * "Call status changes" and "A message comes in" settings).
 *
 * @category models
 */
export interface PhoneNumber {
  readonly phoneNumber: string
  readonly voiceUrl?: string | undefined
  readonly voiceMethod?: HttpMethod | undefined
  readonly statusCallback?: string | undefined
  readonly statusCallbackMethod?: HttpMethod | undefined
  readonly smsUrl?: string | undefined
  readonly smsMethod?: HttpMethod | undefined
}

/**
 * When things happen, in milliseconds.
 *
 * @category models
 */
export interface Timings {
  /** From the create request to `initiated` (the REST answer goes first). */
  readonly queuedMs: number
  /** Ringing before a busy signal or an answer (packages/carrier-sim/README.md: about 1 s). */
  readonly ringMs: number
  /** Ringing before the fake gives up on an unanswered call (packages/carrier-sim/README.md: about 3 s). */
  readonly noAnswerMs: number
  /**
   * With `MachineDetection`, how long the detection listens after the answer before the call's
   * `Url` is requested (Twilio: a few seconds; default 0). The call's duration counts it.
   */
  readonly machineDetectionMs: number
  /** From a message's creation to `sent`, and from `sent` to `delivered`. */
  readonly messageStepMs: number
  /** How long the fake waits for our answer to a webhook (Twilio: 15 s). */
  readonly webhookTimeoutMs: number
}

const defaultTimings: Timings = {
  queuedMs: 100,
  ringMs: simTimings.ringMs,
  noAnswerMs: simTimings.noAnswerMs,
  machineDetectionMs: 0,
  messageStepMs: 100,
  webhookTimeoutMs: 15_000
}

/**
 * @category models
 */
export interface Options {
  /** Default: derived from `seed`. */
  readonly accountSid?: string | undefined
  /** Default: derived from `seed`. Webhooks are signed with it. */
  readonly authToken?: string | undefined
  /** API keys (`SK…` and secret) accepted as Basic credentials besides the account's. */
  readonly apiKeys?: ReadonlyArray<{ readonly sid: string; readonly secret: string }> | undefined
  /** The account's numbers: calls and messages may come from them, inbound ones go to them. */
  readonly numbers?: ReadonlyArray<PhoneNumber> | undefined
  readonly timings?: Partial<Timings> | undefined
  /** SIDs and default credentials derive from it. Default `"twilio-fake"`. */
  readonly seed?: string | undefined
}

/**
 * A REST request the fake received, and what it answered.
 *
 * @category models
 */
export interface RestRequest {
  readonly method: string
  /** The path, without the query string. */
  readonly path: string
  readonly query: URLSearchParams
  /** The form-encoded body (empty for GET). */
  readonly form: URLSearchParams
  /** The Basic auth user name, when there was one. */
  readonly user: string | undefined
  readonly status: number
  readonly response: unknown
}

/**
 * What a request the fake made was for.
 *
 * @category models
 */
export type WebhookKind = "voice" | "call-status" | "sms" | "message-status" | "forged"

/**
 * A request the fake made to our side, and our answer (`status` undefined while it is pending,
 * or when there was none: `error` says why).
 *
 * @category models
 */
export interface Webhook {
  readonly kind: WebhookKind
  /** The `CA…` or `SM…` it is about ("" when forged). */
  readonly sid: string
  readonly method: HttpMethod
  /** The URL requested (for GET, with the parameters). */
  readonly url: string
  readonly params: URLSearchParams
  readonly signature: string | undefined
  readonly status: number | undefined
  readonly body: string
  readonly error: string | undefined
  /** Our answer arrived (or the request failed). */
  readonly answered: boolean
}

/**
 * The call resource's status (`call_enum_status`).
 *
 * @category models
 */
export type CallStatus =
  | "queued"
  | "ringing"
  | "in-progress"
  | "completed"
  | "busy"
  | "failed"
  | "no-answer"
  | "canceled"

const terminal = (status: CallStatus): boolean =>
  status === "completed" || status === "busy" || status === "failed" || status === "no-answer" ||
  status === "canceled"

/**
 * A call's Media Stream.
 *
 * @category models
 */
export interface StreamView {
  /** The `<Stream url>` as the TwiML gave it. */
  readonly url: string
  /** The URL the fake connected to (resolved, query string dropped) and signed. */
  readonly connectUrl: string
  readonly streamSid: string
  readonly signature: string
  readonly customParameters: Readonly<Record<string, string>>
  readonly connected: boolean
  /** Why it could not be opened, when it could not. */
  readonly error: string | undefined
  /** Who ended it: the person hung up, our side closed it, a REST hang-up, or a REST update's TwiML. */
  readonly endedBy: "person" | "server" | "carrier" | "redirected" | undefined
}

/**
 * A call as the fake sees it (a snapshot).
 *
 * @category models
 */
export interface CallView {
  readonly sid: string
  readonly direction: "outbound-api" | "inbound"
  readonly from: string
  readonly to: string
  /** What the dialed number does (packages/carrier-sim/README.md); for an inbound call, what the caller does. */
  readonly outcome: SimOutcome
  readonly status: CallStatus
  /** Every `CallStatus` the call went through, in order (`initiated`, `ringing`, …, its end). */
  readonly progress: ReadonlyArray<string>
  readonly answeredBy: string | undefined
  /** The create request's parameters (outbound). */
  readonly request: URLSearchParams | undefined
  /** The TwiML documents the call ran. */
  readonly documents: ReadonlyArray<string>
  /** Verbs the fake does not play, skipped. */
  readonly skipped: ReadonlyArray<string>
  /** The numbers `<Dial>` bridged the call to, in order. */
  readonly dialed: ReadonlyArray<string>
  readonly stream: StreamView | undefined
  /** Twilio error notifications (`11200` retrieval failure, `12100` parse failure, …). */
  readonly errors: ReadonlyArray<{ readonly code: number; readonly message: string }>
  readonly startedAt: number | undefined
  readonly answeredAt: number | undefined
  readonly endedAt: number | undefined
  /** Seconds from the answer to the end, rounded up (0 when never answered). */
  readonly duration: number | undefined
  /** Ended, and its last status callback answered. */
  readonly done: boolean
}

/**
 * A message as the fake sees it (a snapshot).
 *
 * @category models
 */
export interface MessageView {
  readonly sid: string
  readonly direction: "outbound-api" | "inbound"
  readonly from: string
  readonly to: string
  readonly body: string
  readonly status: string
  /** Every status it went through. */
  readonly progress: ReadonlyArray<string>
  readonly errorCode: number | undefined
  readonly statusCallback: string | undefined
  /** Final, and its last status callback answered. */
  readonly done: boolean
}

/**
 * How `forgeWebhook` makes its request not Twilio's: no signature, a signature made with
 * another auth token, one made over another URL, parameters changed after signing, or a given
 * header value.
 *
 * @category models
 */
export type Forgery = "missing" | "wrong-token" | "other-url" | "tampered" | { readonly header: string }

/**
 * @category models
 */
export interface TwilioFake {
  /** The REST base URL (`TWILIO_API_BASE`), e.g. `http://127.0.0.1:41234`. */
  readonly url: string
  readonly accountSid: string
  readonly authToken: string
  /** The REST requests received, in order. */
  readonly requests: ReadonlyArray<RestRequest>
  /** The requests the fake made (webhooks, callbacks, forgeries), in the order they were sent. */
  readonly webhooks: ReadonlyArray<Webhook>
  readonly calls: () => ReadonlyArray<CallView>
  readonly call: (sid: string) => CallView | undefined
  readonly messages: () => ReadonlyArray<MessageView>
  /** Adds one of the account's numbers, or changes its webhooks. */
  readonly configureNumber: (number: PhoneNumber) => Effect.Effect<void>
  /** The next `count` REST requests are answered 429 (`20429`). */
  readonly throttle: (count: number) => Effect.Effect<void>
  /** Waits until `look` answers something (checked now and after every change). */
  readonly waitFor: <A>(look: () => A | undefined) => Effect.Effect<A>
  /** The first call (in order placed) that `predicate` accepts, waiting for it. */
  readonly awaitCall: (predicate?: (call: CallView) => boolean) => Effect.Effect<CallView>
  /** Waits until the call has ended and its last status callback was answered. */
  readonly awaitCallDone: (sid: string) => Effect.Effect<CallView>
  /**
   * Holds every status callback back (calls go on; their callbacks wait, in order) until the
   * answered effect runs.
   */
  readonly holdStatusCallbacks: Effect.Effect<Effect.Effect<void>>
  /** The person on the call hangs up now (as if their script ended). */
  readonly remoteHangUp: (sid: string) => Effect.Effect<void>
  /**
   * An incoming call from `from` to the account's number `to`: answers its `CA…` at once and
   * runs the call (voice webhook, TwiML, stream). The caller behaves as `caller` (default
   * `conversation`: answers questions, hangs up after a goodbye).
   */
  readonly incomingCall: (options: {
    readonly from: string
    readonly to: string
    readonly caller?: SimPerson.AnsweredOutcome | undefined
  }) => Effect.Effect<string>
  /**
   * An incoming SMS to the account's number `to`: posts its messaging webhook `deliveries` times
   * (default 1; 2 is Twilio retrying: same `MessageSid`, same idempotency token) and answers
   * those requests once answered.
   */
  readonly incomingSms: (options: {
    readonly from: string
    readonly to: string
    readonly body: string
    readonly deliveries?: number | undefined
  }) => Effect.Effect<ReadonlyArray<Webhook>>
  /** Sends `params` to `url` as Twilio would, but with a signature that is not Twilio's. */
  readonly forgeWebhook: (options: {
    readonly url: string
    readonly params: Readonly<Record<string, string>>
    readonly forgery: Forgery
    readonly method?: HttpMethod | undefined
  }) => Effect.Effect<Webhook>
  /** Twilio's signature of a request to `url` with `params`, with this account's token. */
  readonly sign: (url: string, params?: TwilioSignature.Params) => string
}

// --- internal state -----------------------------------------------------------------------

interface MutableWebhook {
  kind: WebhookKind
  sid: string
  method: HttpMethod
  url: string
  params: URLSearchParams
  signature: string | undefined
  status: number | undefined
  body: string
  error: string | undefined
  answered: boolean
}

interface CallState {
  readonly sid: string
  readonly direction: "outbound-api" | "inbound"
  readonly from: string
  readonly to: string
  readonly outcome: SimOutcome
  readonly request: URLSearchParams | undefined
  readonly statusCallback: { readonly url: string; readonly method: HttpMethod } | undefined
  readonly events: ReadonlySet<string>
  readonly machineDetection: "Enable" | "DetectMessageEnd" | undefined
  readonly timeoutMs: number
  readonly dateCreated: number
  status: CallStatus
  progress: Array<string>
  answeredBy: string | undefined
  documents: Array<string>
  skipped: Array<string>
  stream: StreamView | undefined
  errors: Array<{ code: number; message: string }>
  startedAt: number | undefined
  answeredAt: number | undefined
  endedAt: number | undefined
  duration: number | undefined
  done: boolean
  sequence: number
  /** The last status callback sent (the next one waits for it). */
  lastCallback: Fiber.Fiber<void> | undefined
  /** A REST hang-up: `canceled` before the answer, `completed` after. */
  readonly hangUp: Deferred.Deferred<void>
  readonly personHangsUp: Deferred.Deferred<void>
  dialed: Array<string>
  /** The TwiML of a REST update not yet taken up; `redirected` is completed when it comes. */
  redirect: string | undefined
  redirected: Deferred.Deferred<void>
}

interface MessageState {
  readonly sid: string
  readonly direction: "outbound-api" | "inbound"
  readonly from: string
  readonly to: string
  readonly body: string
  readonly dateCreated: number
  readonly statusCallback: { readonly url: string; readonly method: HttpMethod } | undefined
  status: string
  progress: Array<string>
  errorCode: number | undefined
  dateSent: number | undefined
  done: boolean
}

interface NumberState {
  readonly sid: string
  readonly dateCreated: number
  settings: PhoneNumber
}

interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

const API_VERSION = "2010-04-01"

const E164 = /^\+[1-9]\d{1,14}$/

/** RFC 2822, as Twilio writes dates: `Sun, 25 Mar 2018 09:53:19 +0000`. */
export const rfc2822 = (millis: number): string => new Date(millis).toUTCString().replace("GMT", "+0000")

/** `YYMMDDhhmm` (UTC), Twilio's `RawDlrDoneDate`. */
const dlrDate = (millis: number): string => new Date(millis).toISOString().replace(/\D/g, "").slice(2, 12)

const formatted = (number: string): string => {
  const nanp = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number)
  return nanp === null ? number : `(${nanp[1]}) ${nanp[2]}-${nanp[3]}`
}

/** A GET webhook's URL: the parameters in its query string. */
const withQuery = (url: string, params: URLSearchParams): string =>
  `${url}${url.includes("?") ? "&" : "?"}${params.toString()}`

const twilioError = (status: number, code: number, message: string): Answer => ({
  status,
  body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }
})

const methodOf = (value: string | null, fallback: HttpMethod = "POST"): HttpMethod | undefined => {
  if (value === null || value === "") return fallback
  const upper = value.toUpperCase()
  return upper === "GET" || upper === "POST" ? upper : undefined
}

const isAnswered = (outcome: SimOutcome): outcome is SimPerson.AnsweredOutcome =>
  outcome === "conversation" || outcome === "voicemail" || outcome === "early-hangup" ||
  outcome === "never-hangs-up"

/**
 * Starts the fake on `127.0.0.1` (a free port) for the scope: the server stops and every call
 * in flight is interrupted (its stream closed) when the scope closes.
 *
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<TwilioFake, never, Scope.Scope> =>
  Effect.gen(function*() {
    const seed = options.seed ?? "twilio-fake"
    const hex = (what: string) => createHash("sha256").update(`${seed}/${what}`).digest("hex").slice(0, 32)
    const accountSid = options.accountSid ?? `AC${hex("account")}`
    const authToken = options.authToken ?? hex("auth-token")
    const apiKeys = options.apiKeys ?? []
    const timings: Timings = { ...defaultTimings, ...options.timings }
    const counters = new Map<string, number>()
    const newSid = (prefix: string) => {
      const n = (counters.get(prefix) ?? 0) + 1
      counters.set(prefix, n)
      return `${prefix}${hex(`${prefix}/${n}`)}`
    }
    const scope = yield* Effect.scope
    const clock = yield* Clock.Clock
    const now = () => clock.currentTimeMillisUnsafe()

    const requests: Array<RestRequest> = []
    const webhooks: Array<MutableWebhook> = []
    const calls = new Map<string, CallState>()
    const messages = new Map<string, MessageState>()
    const numbers = new Map<string, NumberState>()
    let throttled = 0
    let callbacksHeld: Deferred.Deferred<void> | undefined

    for (const number of options.numbers ?? []) {
      numbers.set(number.phoneNumber, { sid: newSid("PN"), dateCreated: now(), settings: number })
    }

    // Waiters re-check their condition after every change.
    const listeners = new Set<() => void>()
    const changed = () => {
      for (const listener of listeners) listener()
    }
    const waitFor = <A>(look: () => A | undefined): Effect.Effect<A> =>
      Effect.callback<A>((resume) => {
        const check = () => {
          const found = look()
          if (found === undefined) return
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
        listeners.add(check)
        check()
        return Effect.sync(() => void listeners.delete(check))
      })

    const sign = (url: string, params: TwilioSignature.Params = []) => TwilioSignature.sign(authToken, url, params)

    // --- outgoing requests ------------------------------------------------------------------

    /** Requests `url` as Twilio does (signed) and records it with our answer. */
    const request = (
      kind: WebhookKind,
      sid: string,
      url: string,
      method: HttpMethod,
      params: URLSearchParams,
      headers: { readonly signature: string | undefined; readonly idempotencyToken: string }
    ): Effect.Effect<Webhook> =>
      Effect.gen(function*() {
        const target = method === "GET" ? withQuery(url, params) : url
        const record: MutableWebhook = {
          kind,
          sid,
          method,
          url: target,
          params,
          signature: headers.signature,
          status: undefined,
          body: "",
          error: undefined,
          answered: false
        }
        webhooks.push(record)
        changed()
        const sent = yield* Effect.tryPromise({
          try: async (signal) => {
            const response = await fetch(target, {
              method,
              headers: {
                "user-agent": "TwilioProxy/1.1",
                "accept": "*/*",
                "i-twilio-idempotency-token": headers.idempotencyToken,
                ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {}),
                ...(headers.signature === undefined ? {} : { "x-twilio-signature": headers.signature })
              },
              ...(method === "POST" ? { body: params.toString() } : {}),
              redirect: "manual",
              signal: AbortSignal.any([signal, AbortSignal.timeout(timings.webhookTimeoutMs)])
            })
            return { status: response.status, body: await response.text() }
          },
          catch: (cause) => cause instanceof Error ? cause.message : String(cause)
        }).pipe(Effect.result)
        if (Result.isSuccess(sent)) {
          record.status = sent.success.status
          record.body = sent.success.body
        } else {
          record.error = sent.failure
        }
        record.answered = true
        changed()
        return record
      })

    /** A signed webhook (the signature over the exact URL requested). */
    const webhook = (kind: WebhookKind, sid: string, url: string, method: HttpMethod, params: URLSearchParams) => {
      return request(kind, sid, url, method, params, {
        signature: method === "GET" ? sign(withQuery(url, params)) : sign(url, params),
        idempotencyToken: `${sid}-${hex(`idempotency/${webhooks.length}`)}`
      })
    }

    // --- calls ------------------------------------------------------------------------------

    const voiceParams = (call: CallState, callStatus: string): URLSearchParams => {
      const params = new URLSearchParams({
        AccountSid: accountSid,
        ApiVersion: API_VERSION,
        CallSid: call.sid,
        CallStatus: callStatus,
        Called: call.to,
        Caller: call.from,
        Direction: call.direction,
        From: call.from,
        To: call.to
      })
      if (call.answeredBy !== undefined) params.set("AnsweredBy", call.answeredBy)
      return params
    }

    /**
     * Records that the call went through `callStatus`, and sends its status callback if asked
     * (in the background, after the call's previous callback).
     */
    const progress = (call: CallState, callStatus: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        call.progress.push(callStatus)
        const event = callStatus === "in-progress"
          ? "answered"
          : terminal(callStatus as CallStatus)
          ? "completed"
          : callStatus
        const last = event === "completed"
        changed()
        const callback = call.statusCallback !== undefined && call.events.has(event) ? call.statusCallback : undefined
        if (callback === undefined && !last) return Effect.void
        const params = voiceParams(call, callStatus)
        if (callback !== undefined) {
          params.set("CallbackSource", "call-progress-events")
          params.set("SequenceNumber", String(call.sequence++))
          params.set("Timestamp", rfc2822(now()))
          if (last) {
            params.set("CallDuration", String(call.duration ?? 0))
            params.set("Duration", String(Math.ceil((call.duration ?? 0) / 60)))
          }
        }
        const previous = call.lastCallback
        const held = callbacksHeld
        return Effect.gen(function*() {
          if (previous !== undefined) yield* Fiber.await(previous)
          if (held !== undefined && callback !== undefined) yield* Deferred.await(held)
          if (callback !== undefined) yield* webhook("call-status", call.sid, callback.url, callback.method, params)
          if (last) {
            call.done = true
            changed()
          }
        }).pipe(
          Effect.forkIn(scope),
          Effect.map((fiber) => void (call.lastCallback = fiber))
        )
      })

    const finish = (call: CallState, status: CallStatus): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (terminal(call.status)) return Effect.void
        call.status = status
        call.endedAt = now()
        call.duration = call.answeredAt === undefined ? 0 : Math.ceil((call.endedAt - call.answeredAt) / 1000)
        return progress(call, status)
      })

    /** Fetches a TwiML document (or fails the call with Twilio's error code): its verbs and URL. */
    const fetchTwiml = (call: CallState, url: string, method: HttpMethod, callStatus: string) =>
      Effect.gen(function*() {
        const answer = yield* webhook("voice", call.sid, url, method, voiceParams(call, callStatus))
        if (answer.status === undefined || answer.status < 200 || answer.status > 299) {
          call.errors.push({
            code: 11200,
            message: `HTTP retrieval failure: ${answer.status ?? answer.error} from ${url}`
          })
          changed()
          return undefined
        }
        return document(call, answer.body, url)
      })

    const document = (call: CallState, twiml: string, url: string | undefined) => {
      call.documents.push(twiml)
      const verbs = Twiml.parse(twiml)
      if (typeof verbs === "string") {
        call.errors.push({ code: 12100, message: `Document parse failure: ${verbs}` })
        changed()
        return undefined
      }
      changed()
      return { verbs, url }
    }

    /** The person (or machine) on the line: theirs, unless the test hangs them up first. */
    const personOf = (call: CallState) => (line: SimMediaStream.Line): Effect.Effect<void> =>
      Effect.raceFirst(
        isAnswered(call.outcome) ? SimPerson.behave(call.outcome, line) : Effect.void,
        Deferred.await(call.personHangsUp)
      )

    /** Runs `<Connect><Stream>`: how the stream ended, or `failed` when it never opened. */
    const stream = (
      call: CallState,
      spec: NonNullable<Extract<Twiml.Verb, { _tag: "Connect" }>["stream"]>,
      base: string | undefined
    ): Effect.Effect<"person" | "server" | "carrier" | "redirected" | "failed"> =>
      Effect.scoped(Effect.gen(function*() {
        const customParameters = Object.fromEntries(spec.parameters.map((p) => [p.name, p.value]))
        const streamSid = newSid("MZ")
        const fail = (code: number, message: string, connectUrl = "") => {
          call.errors.push({ code, message })
          call.stream = {
            url: spec.url,
            connectUrl,
            streamSid,
            signature: "",
            customParameters,
            connected: false,
            error: message,
            endedBy: undefined
          }
          changed()
          return "failed" as const
        }
        let resolved: URL
        try {
          resolved = new URL(spec.url, base?.replace(/^http/, "ws"))
        } catch {
          return fail(31920, `Stream url ${JSON.stringify(spec.url)} is not a valid URL`)
        }
        if (resolved.protocol !== "wss:" && resolved.protocol !== "ws:") {
          return fail(31920, `Stream url ${spec.url}: wss is the only supported protocol`)
        }
        if (spec.track !== undefined && spec.track !== "inbound_track") {
          return fail(31941, "Value different of 'inbound_track' is used with verb Connect")
        }
        // Twilio drops a query string from the stream URL, and signs the wss:// URL it requests.
        const connectUrl = `${resolved.protocol}//${resolved.host}${resolved.pathname}`
        const signature = sign(connectUrl)
        let current: StreamView = {
          url: spec.url,
          connectUrl,
          streamSid,
          signature,
          customParameters,
          connected: false,
          error: undefined,
          endedBy: undefined
        }
        const view = (patch: Partial<StreamView>) => {
          current = { ...current, ...patch }
          call.stream = current
          changed()
        }
        view({})
        const opened = yield* Effect.raceFirst(
          Socket.makeWebSocket(connectUrl, {
            openTimeout: Duration.seconds(5),
            headers: { "x-twilio-signature": signature }
          }).pipe(
            Effect.flatMap(SocketMedia.fromSocket),
            Effect.provide(NodeSocket.layerWebSocketConstructor),
            Effect.result
          ),
          Effect.as(Deferred.await(call.hangUp), undefined)
        )
        if (opened === undefined) return "carrier"
        if (Result.isFailure(opened)) {
          view({ error: opened.failure.message })
          call.errors.push({ code: 31920, message: `Stream - WebSocket - Handshake Error: ${opened.failure.message}` })
          changed()
          return "failed"
        }
        view({ connected: true })
        const redirected = call.redirected
        const ended = yield* SimMediaStream.run({
          socket: opened.success,
          accountSid,
          callSid: call.sid,
          streamSid,
          customParameters,
          person: personOf(call),
          // A REST update stops the stream as a hang-up does (`stop`, then closed).
          hangUp: Effect.raceFirst(Deferred.await(call.hangUp), Deferred.await(redirected))
        })
        const endedBy = ended === "remote-hangup"
          ? "person"
          : Deferred.isDoneUnsafe(call.hangUp)
          ? "carrier"
          : Deferred.isDoneUnsafe(redirected)
          ? "redirected"
          : "server"
        view({ endedBy })
        return endedBy
      }))

    /** How long a `<Dial>` leg to `number` lasts, by what the number does. */
    const legMs = (number: string): number => {
      const outcome = outcomeFor(number)
      switch (outcome) {
        case "busy":
          return timings.ringMs
        case "no-answer":
          return timings.noAnswerMs
        case "carrier-failure":
          return 0
        case "conversation":
        case "voicemail":
        case "early-hangup":
        case "never-hangs-up":
          return timings.ringMs + conversationMs(number)
      }
    }

    /**
     * Runs the verbs of an answered call until one ends it or none is left; `redirected` when a
     * REST update stopped it (its TwiML runs next).
     */
    const run = (
      call: CallState,
      twiml: { readonly verbs: ReadonlyArray<Twiml.Verb>; readonly url: string | undefined }
    ): Effect.Effect<"redirected" | undefined> =>
      Effect.gen(function*() {
        const redirected = call.redirected
        for (const verb of twiml.verbs) {
          if (Deferred.isDoneUnsafe(call.hangUp)) return undefined
          if (Deferred.isDoneUnsafe(redirected)) return "redirected"
          switch (verb._tag) {
            case "Connect": {
              if (verb.stream === undefined) {
                call.skipped.push("Connect")
                break
              }
              const ended = yield* stream(call, verb.stream, twiml.url)
              if (ended === "redirected") return "redirected"
              if (ended === "person" || ended === "carrier") return undefined
              break
            }
            case "Dial": {
              call.skipped.push(...verb.nouns)
              const number = verb.numbers[0]
              if (number === undefined) break
              call.dialed.push(number)
              changed()
              const leg = yield* Effect.raceFirst(
                Effect.as(Effect.sleep(Duration.millis(legMs(number))), "ended" as const),
                Effect.raceFirst(
                  Effect.as(Deferred.await(call.hangUp), "carrier" as const),
                  Effect.as(Deferred.await(redirected), "redirected" as const)
                )
              )
              if (leg === "carrier") return undefined
              if (leg === "redirected") return "redirected"
              break
            }
            case "Hangup":
            case "Reject":
              return undefined
            case "Other":
              call.skipped.push(verb.name)
              changed()
              break
          }
        }
        return Deferred.isDoneUnsafe(redirected) ? "redirected" : undefined
      })

    /**
     * Runs an answered call's TwiML (to its end or a REST hang-up), then ends it `completed`. A
     * stream handles the hang-up itself (`stop`, then close), so nothing races it.
     */
    const answered = (call: CallState, twiml: Effect.Effect<Parameters<typeof run>[1] | undefined>) =>
      Effect.gen(function*() {
        let running = yield* Effect.raceFirst(twiml, Effect.as(Deferred.await(call.hangUp), undefined))
        while (running !== undefined) {
          const ran = yield* run(call, running)
          const next = call.redirect
          if (ran !== "redirected" || next === undefined || Deferred.isDoneUnsafe(call.hangUp)) break
          call.redirect = undefined
          call.redirected = Deferred.makeUnsafe()
          running = document(call, next, undefined)
        }
        yield* finish(call, "completed")
      })

    const answer = (call: CallState): Effect.Effect<void> =>
      Effect.suspend(() => {
        call.status = "in-progress"
        call.answeredAt = now()
        return progress(call, "in-progress")
      })

    const outbound = (call: CallState, url: string | undefined, method: HttpMethod, inline: string | undefined) =>
      Effect.gen(function*() {
        const hungUp = Deferred.await(call.hangUp)
        // A call canceled while still queued fires no status callbacks.
        const queued = yield* Effect.raceFirst(
          Effect.as(Effect.sleep(Duration.millis(timings.queuedMs)), true),
          Effect.as(hungUp, false)
        )
        if (!queued) {
          call.status = "canceled"
          call.endedAt = now()
          call.duration = 0
          call.progress.push("canceled")
          call.done = true
          return changed()
        }
        call.startedAt = now()
        yield* progress(call, "initiated")
        call.status = "ringing"
        yield* progress(call, "ringing")
        const ring = (ms: number) => Effect.sleep(Duration.millis(Math.min(ms, call.timeoutMs)))
        const rang = yield* Effect.raceFirst(
          ((): Effect.Effect<CallStatus | "answered"> => {
            switch (call.outcome) {
              case "busy":
                return Effect.as(Effect.sleep(Duration.millis(timings.ringMs)), "busy")
              case "no-answer":
                return Effect.as(ring(timings.noAnswerMs), "no-answer")
              case "carrier-failure":
                return Effect.succeed("failed")
              case "conversation":
              case "voicemail":
              case "early-hangup":
              case "never-hangs-up":
                return timings.ringMs > call.timeoutMs
                  ? Effect.as(ring(timings.ringMs), "no-answer")
                  : Effect.as(Effect.sleep(Duration.millis(timings.ringMs)), "answered")
            }
          })(),
          Effect.as(hungUp, "canceled" as const)
        )
        if (rang !== "answered") return yield* finish(call, rang)
        if (call.machineDetection !== undefined) {
          call.answeredBy = call.outcome !== "voicemail"
            ? "human"
            : call.machineDetection === "Enable"
            ? "machine_start"
            : "machine_end_beep"
        }
        yield* answer(call)
        if (call.machineDetection !== undefined && timings.machineDetectionMs > 0) {
          const detected = yield* Effect.raceFirst(
            Effect.as(Effect.sleep(Duration.millis(timings.machineDetectionMs)), true),
            Effect.as(Deferred.await(call.hangUp), false)
          )
          if (!detected) return yield* finish(call, "completed")
        }
        yield* answered(
          call,
          url !== undefined
            ? fetchTwiml(call, url, method, "in-progress")
            : Effect.sync(() => document(call, inline ?? "", undefined))
        )
      })

    const inbound = (call: CallState, voiceUrl: string, voiceMethod: HttpMethod) =>
      Effect.gen(function*() {
        call.startedAt = now()
        call.progress.push("ringing")
        changed()
        const twiml = yield* Effect.raceFirst(
          fetchTwiml(call, voiceUrl, voiceMethod, "ringing"),
          Effect.as(Deferred.await(call.hangUp), "canceled" as const)
        )
        if (twiml === "canceled") return yield* finish(call, "canceled")
        const first = twiml?.verbs[0]
        if (first?._tag === "Reject") return yield* finish(call, first.reason === "busy" ? "busy" : "no-answer")
        // Anything else answers the call (an application error too: Twilio says so and hangs up).
        yield* answer(call)
        yield* answered(call, Effect.succeed(twiml))
      })

    const newCall = (fields: {
      readonly direction: "outbound-api" | "inbound"
      readonly from: string
      readonly to: string
      readonly outcome: SimOutcome
      readonly request: URLSearchParams | undefined
      readonly statusCallback: CallState["statusCallback"]
      readonly events: ReadonlySet<string>
      readonly machineDetection: CallState["machineDetection"]
      readonly timeoutMs: number
    }): CallState => {
      const call: CallState = {
        ...fields,
        sid: newSid("CA"),
        dateCreated: now(),
        status: fields.direction === "inbound" ? "ringing" : "queued",
        progress: [],
        answeredBy: undefined,
        documents: [],
        skipped: [],
        stream: undefined,
        errors: [],
        startedAt: undefined,
        answeredAt: undefined,
        endedAt: undefined,
        duration: undefined,
        done: false,
        sequence: 0,
        lastCallback: undefined,
        hangUp: Deferred.makeUnsafe(),
        personHangsUp: Deferred.makeUnsafe(),
        dialed: [],
        redirect: undefined,
        redirected: Deferred.makeUnsafe()
      }
      calls.set(call.sid, call)
      changed()
      return call
    }

    const callView = (call: CallState): CallView => ({
      sid: call.sid,
      direction: call.direction,
      from: call.from,
      to: call.to,
      outcome: call.outcome,
      status: call.status,
      progress: [...call.progress],
      answeredBy: call.answeredBy,
      request: call.request,
      documents: [...call.documents],
      skipped: [...call.skipped],
      dialed: [...call.dialed],
      stream: call.stream,
      errors: [...call.errors],
      startedAt: call.startedAt,
      answeredAt: call.answeredAt,
      endedAt: call.endedAt,
      duration: call.duration,
      done: call.done
    })

    const callJson = (call: CallState) => {
      const uri = `/${API_VERSION}/Accounts/${accountSid}/Calls/${call.sid}`
      return {
        account_sid: accountSid,
        annotation: null,
        answered_by: call.answeredBy ?? null,
        api_version: API_VERSION,
        caller_name: null,
        date_created: rfc2822(call.dateCreated),
        date_updated: rfc2822(call.endedAt ?? call.answeredAt ?? call.startedAt ?? call.dateCreated),
        direction: call.direction,
        duration: call.duration === undefined ? null : String(call.duration),
        end_time: call.endedAt === undefined ? null : rfc2822(call.endedAt),
        forwarded_from: null,
        from: call.from,
        from_formatted: formatted(call.from),
        group_sid: null,
        parent_call_sid: null,
        phone_number_sid: numbers.get(call.direction === "inbound" ? call.to : call.from)?.sid ?? null,
        price: null,
        price_unit: "USD",
        queue_time: "0",
        sid: call.sid,
        start_time: call.startedAt === undefined ? null : rfc2822(call.startedAt),
        status: call.status,
        subresource_uris: {
          notifications: `${uri}/Notifications.json`,
          recordings: `${uri}/Recordings.json`,
          payments: `${uri}/Payments.json`,
          events: `${uri}/Events.json`,
          siprec: `${uri}/Siprec.json`,
          streams: `${uri}/Streams.json`,
          user_defined_message_subscriptions: `${uri}/UserDefinedMessageSubscriptions.json`,
          user_defined_messages: `${uri}/UserDefinedMessages.json`
        },
        to: call.to,
        to_formatted: formatted(call.to),
        trunk_sid: null,
        uri: `${uri}.json`
      }
    }

    // --- messages ---------------------------------------------------------------------------

    const messageView = (message: MessageState): MessageView => ({
      sid: message.sid,
      direction: message.direction,
      from: message.from,
      to: message.to,
      body: message.body,
      status: message.status,
      progress: [...message.progress],
      errorCode: message.errorCode,
      statusCallback: message.statusCallback?.url,
      done: message.done
    })

    const messageJson = (message: MessageState) => ({
      account_sid: accountSid,
      api_version: API_VERSION,
      body: message.body,
      date_created: rfc2822(message.dateCreated),
      date_sent: message.dateSent === undefined ? null : rfc2822(message.dateSent),
      date_updated: rfc2822(message.dateSent ?? message.dateCreated),
      direction: message.direction,
      error_code: message.errorCode ?? null,
      error_message: message.errorCode === undefined ? null : "Unreachable destination handset",
      from: message.from,
      messaging_service_sid: null,
      num_media: "0",
      num_segments: String(Math.max(1, Math.ceil(message.body.length / 153))),
      price: null,
      price_unit: "USD",
      sid: message.sid,
      status: message.status,
      subresource_uris: {
        media: `/${API_VERSION}/Accounts/${accountSid}/Messages/${message.sid}/Media.json`
      },
      to: message.to,
      uri: `/${API_VERSION}/Accounts/${accountSid}/Messages/${message.sid}.json`
    })

    /** `sent`, then `delivered` (`undelivered`, `30003`, to a carrier-failure number), each called back. */
    const deliver = (message: MessageState) =>
      Effect.gen(function*() {
        const step = (status: string) =>
          Effect.gen(function*() {
            yield* Effect.sleep(Duration.millis(timings.messageStepMs))
            message.status = status
            message.progress.push(status)
            if (status === "sent") message.dateSent = now()
            if (status === "undelivered") message.errorCode = 30003
            changed()
            if (message.statusCallback === undefined) return
            const params = new URLSearchParams({
              AccountSid: accountSid,
              ApiVersion: API_VERSION,
              From: message.from,
              MessageSid: message.sid,
              MessageStatus: status,
              SmsSid: message.sid,
              SmsStatus: status,
              To: message.to
            })
            if (message.errorCode !== undefined) params.set("ErrorCode", String(message.errorCode))
            if (status !== "sent") params.set("RawDlrDoneDate", dlrDate(now()))
            yield* webhook(
              "message-status",
              message.sid,
              message.statusCallback.url,
              message.statusCallback.method,
              params
            )
          })
        yield* step("sent")
        yield* step(outcomeFor(message.to) === "carrier-failure" ? "undelivered" : "delivered")
        message.done = true
        changed()
      })

    // --- REST -------------------------------------------------------------------------------

    const list = (key: string, path: string, items: ReadonlyArray<unknown>) => ({
      [key]: items,
      end: Math.max(0, items.length - 1),
      first_page_uri: `${path}?PageSize=50&Page=0`,
      next_page_uri: null,
      page: 0,
      page_size: 50,
      previous_page_uri: null,
      start: 0,
      uri: `${path}?PageSize=50&Page=0`
    })

    const numberJson = (number: NumberState) => ({
      account_sid: accountSid,
      api_version: API_VERSION,
      capabilities: { fax: false, mms: true, sms: true, voice: true },
      date_created: rfc2822(number.dateCreated),
      date_updated: rfc2822(number.dateCreated),
      friendly_name: formatted(number.settings.phoneNumber),
      phone_number: number.settings.phoneNumber,
      sid: number.sid,
      sms_method: number.settings.smsMethod ?? "POST",
      sms_url: number.settings.smsUrl ?? "",
      status_callback: number.settings.statusCallback ?? "",
      status_callback_method: number.settings.statusCallbackMethod ?? "POST",
      uri: `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers/${number.sid}.json`,
      voice_method: number.settings.voiceMethod ?? "POST",
      voice_url: number.settings.voiceUrl ?? ""
    })

    const invalid = (message: string) => twilioError(400, 20001, message)

    const createCall = (form: URLSearchParams): Effect.Effect<Answer> =>
      Effect.gen(function*() {
        const to = form.get("To")
        const from = form.get("From")
        if (to === null || to === "") return twilioError(400, 21201, "No 'To' number is specified")
        if (from === null || from === "") return twilioError(400, 21213, "No 'From' number is specified")
        if (form.has("ApplicationSid")) return invalid("ApplicationSid is not modeled by this fake")
        const url = form.get("Url") ?? undefined
        const inline = form.get("Twiml") ?? undefined
        if (url === undefined && inline === undefined) return invalid("Either Url, Twiml or ApplicationSid is required")
        if (url !== undefined && !/^https?:\/\/[^/]/.test(url)) {
          return twilioError(400, 21205, `Url is not a valid URL: ${url}`)
        }
        if (!E164.test(to)) {
          return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`)
        }
        if (!numbers.has(from)) {
          return twilioError(
            400,
            21210,
            `The source phone number provided, ${from}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased from Twilio.`
          )
        }
        const method = methodOf(form.get("Method"))
        const callbackMethod = methodOf(form.get("StatusCallbackMethod"))
        if (method === undefined || callbackMethod === undefined) return invalid("Method must be GET or POST")
        const detection = form.get("MachineDetection")
        if (detection !== null && detection !== "Enable" && detection !== "DetectMessageEnd") {
          return invalid(`MachineDetection must be Enable or DetectMessageEnd, not ${detection}`)
        }
        const events = form.getAll("StatusCallbackEvent").flatMap((e) => e.split(" ")).filter((e) => e !== "")
        const unknown = events.find((e) => !["initiated", "ringing", "answered", "completed"].includes(e))
        if (unknown !== undefined) {
          return invalid(`StatusCallbackEvent ${unknown} is not one of initiated, ringing, answered, completed`)
        }
        const timeout = form.get("Timeout")
        const timeoutSeconds = timeout === null ? 60 : Number(timeout)
        if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) {
          return invalid(`Timeout must be a positive integer`)
        }
        const statusCallback = form.get("StatusCallback")
        const call = newCall({
          direction: "outbound-api",
          from,
          to,
          outcome: outcomeFor(to),
          request: form,
          statusCallback: statusCallback === null || statusCallback === ""
            ? undefined
            : { url: statusCallback, method: callbackMethod },
          events: new Set(events.length === 0 ? ["completed"] : events),
          machineDetection: detection ?? undefined,
          timeoutMs: Math.min(timeoutSeconds, 600) * 1000
        })
        yield* Effect.forkIn(outbound(call, url, method, inline), scope)
        return { status: 201, body: callJson(call) }
      })

    const updateCall = (call: CallState, form: URLSearchParams): Effect.Effect<Answer> =>
      Effect.gen(function*() {
        const status = form.get("Status")
        const twiml = form.get("Twiml")
        if (form.has("Url")) return invalid("the fake models Status and Twiml updates (no Url redirects)")
        if (twiml !== null && status !== null) return invalid("the fake models Status or Twiml, not both at once")
        if (twiml !== null) {
          if (twiml.length > 4_000) return invalid("Twiml must be at most 4000 characters")
          if (call.status !== "in-progress") return twilioError(400, 21220, "Call is not in-progress. Cannot redirect.")
          // What runs stops (a stream gets `stop`), and the document runs instead.
          call.redirect = twiml
          Deferred.doneUnsafe(call.redirected, Effect.void)
          changed()
          return { status: 200, body: callJson(call) }
        }
        if (status === null) return invalid("the fake models only Status and Twiml updates")
        if (status !== "completed" && status !== "canceled") {
          return invalid(`Status must be completed or canceled, not ${status}`)
        }
        // `canceled` ends a call that is queued or ringing, and leaves one in progress alone.
        const ends = !terminal(call.status) && (status === "completed" || call.status !== "in-progress")
        if (ends) {
          Deferred.doneUnsafe(call.hangUp, Effect.void)
          yield* waitFor(() => terminal(call.status) || undefined).pipe(Effect.timeoutOption(Duration.seconds(5)))
        }
        return { status: 200, body: callJson(call) }
      })

    const createMessage = (form: URLSearchParams): Effect.Effect<Answer> =>
      Effect.gen(function*() {
        const to = form.get("To")
        const from = form.get("From")
        const body = form.get("Body") ?? ""
        if (to === null || to === "") return twilioError(400, 21604, "A 'To' phone number is required.")
        if (from === null || from === "") return twilioError(400, 21603, "A 'From' phone number is required.")
        if (body === "" && !form.has("MediaUrl")) return twilioError(400, 21602, "Message body is required.")
        if (body.length > 1600) {
          return twilioError(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
        }
        if (!E164.test(to)) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`)
        if (!numbers.has(from)) {
          return twilioError(
            400,
            21606,
            `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`
          )
        }
        const callbackMethod = methodOf(form.get("StatusCallbackMethod")) ?? "POST"
        const statusCallback = form.get("StatusCallback")
        const message: MessageState = {
          sid: newSid("SM"),
          direction: "outbound-api",
          from,
          to,
          body,
          dateCreated: now(),
          statusCallback: statusCallback === null || statusCallback === ""
            ? undefined
            : { url: statusCallback, method: callbackMethod },
          status: "queued",
          progress: ["queued"],
          errorCode: undefined,
          dateSent: undefined,
          done: false
        }
        messages.set(message.sid, message)
        changed()
        yield* Effect.forkIn(deliver(message), scope)
        return { status: 201, body: messageJson(message) }
      })

    const updateNumber = (number: NumberState, form: URLSearchParams): Answer => {
      const settings: { -readonly [K in keyof PhoneNumber]: PhoneNumber[K] } = { ...number.settings }
      const url = (name: string) => form.has(name) ? (form.get(name) === "" ? undefined : form.get(name)!) : undefined
      for (
        const [param, key] of [["VoiceUrl", "voiceUrl"], ["StatusCallback", "statusCallback"], [
          "SmsUrl",
          "smsUrl"
        ]] as const
      ) {
        if (form.has(param)) settings[key] = url(param)
      }
      for (
        const [param, key] of [
          ["VoiceMethod", "voiceMethod"],
          ["StatusCallbackMethod", "statusCallbackMethod"],
          ["SmsMethod", "smsMethod"]
        ] as const
      ) {
        if (!form.has(param)) continue
        const method = methodOf(form.get(param))
        if (method === undefined) return invalid(`${param} must be GET or POST`)
        settings[key] = method
      }
      number.settings = settings
      changed()
      return { status: 200, body: numberJson(number) }
    }

    const notFound = (path: string) => twilioError(404, 20404, `The requested resource ${path} was not found`)

    const route = (
      method: string,
      path: string,
      form: URLSearchParams,
      query: URLSearchParams,
      user: string | undefined
    ): Effect.Effect<Answer> =>
      Effect.gen(function*() {
        const match =
          /^\/2010-04-01\/Accounts\/([^/]+)(?:\/(Calls|Messages|IncomingPhoneNumbers)(?:\/([^/]+))?)?\.json$/
            .exec(path)
        if (match === null) return notFound(path)
        if (user === undefined || match[1] !== accountSid) {
          return {
            ...twilioError(401, 20003, "Authenticate"),
            headers: { "www-authenticate": "Basic realm=\"Twilio API\"" }
          }
        }
        const resource = match[2] as "Calls" | "Messages" | "IncomingPhoneNumbers" | undefined
        const sid = match[3]
        const base = `/${API_VERSION}/Accounts/${accountSid}/${resource}.json`
        const allowed = (methods: ReadonlyArray<string>) =>
          methods.includes(method) ? undefined : twilioError(405, 20004, "Method not allowed")
        switch (resource) {
          case "Calls": {
            if (sid === undefined) {
              return allowed(["GET", "POST"]) ??
                (method === "POST" ? yield* createCall(form) : {
                  status: 200,
                  body: list("calls", base, [...calls.values()].reverse().map(callJson))
                })
            }
            const call = calls.get(sid)
            if (call === undefined) return notFound(path)
            return allowed(["GET", "POST"]) ??
              (method === "POST" ? yield* updateCall(call, form) : { status: 200, body: callJson(call) })
          }
          case "Messages": {
            if (sid === undefined) {
              return allowed(["GET", "POST"]) ??
                (method === "POST" ? yield* createMessage(form) : {
                  status: 200,
                  body: list("messages", base, [...messages.values()].reverse().map(messageJson))
                })
            }
            const message = messages.get(sid)
            if (message === undefined) return notFound(path)
            return allowed(["GET"]) ?? { status: 200, body: messageJson(message) }
          }
          case "IncomingPhoneNumbers": {
            if (sid === undefined) {
              const wanted = query.get("PhoneNumber")
              return allowed(["GET"]) ?? {
                status: 200,
                body: list(
                  "incoming_phone_numbers",
                  base,
                  [...numbers.values()].filter((n) => wanted === null || n.settings.phoneNumber === wanted).map(
                    numberJson
                  )
                )
              }
            }
            const number = [...numbers.values()].find((n) => n.sid === sid)
            if (number === undefined) return notFound(path)
            return allowed(["GET", "POST"]) ??
              (method === "POST" ? updateNumber(number, form) : { status: 200, body: numberJson(number) })
          }
          case undefined:
            return allowed(["GET"]) ?? {
              status: 200,
              body: { sid: accountSid, friendly_name: "twilio-fake", status: "active", type: "Full" }
            }
        }
      })

    /** The Basic auth user when the credentials are the account's or one of its API keys'. */
    const authenticated = (header: string | undefined): string | undefined => {
      if (header === undefined || !header.startsWith("Basic ")) return undefined
      const decoded = Buffer.from(header.slice(6), "base64").toString("utf8")
      const colon = decoded.indexOf(":")
      if (colon === -1) return undefined
      const user = decoded.slice(0, colon)
      const password = decoded.slice(colon + 1)
      const ok = (user === accountSid && password === authToken) ||
        apiKeys.some((key) => key.sid === user && key.secret === password)
      return ok ? user : undefined
    }

    const rest = Effect.gen(function*() {
      const incoming = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(incoming.url, "http://twilio-fake")
      const text = incoming.method === "GET" ? "" : yield* Effect.orElseSucceed(incoming.text, () => "")
      const form = new URLSearchParams(text)
      const header = incoming.headers.authorization
      const user = header?.startsWith("Basic ")
        ? Buffer.from(header.slice(6), "base64").toString("utf8").split(":")[0]
        : undefined
      let answer: Answer
      if (throttled > 0) {
        throttled--
        answer = twilioError(429, 20429, "Too Many Requests")
      } else {
        answer = yield* route(incoming.method, url.pathname, form, url.searchParams, authenticated(header))
      }
      requests.push({
        method: incoming.method,
        path: url.pathname,
        query: url.searchParams,
        form,
        user,
        status: answer.status,
        response: answer.body
      })
      changed()
      return HttpServerResponse.text(JSON.stringify(answer.body), {
        status: answer.status,
        contentType: "application/json; charset=utf-8",
        headers: answer.headers ?? {}
      })
    })

    const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1" }).pipe(Effect.orDie)
    yield* server.serve(rest)

    const fake: TwilioFake = {
      url: HttpServer.formatAddress(server.address),
      accountSid,
      authToken,
      requests,
      webhooks,
      calls: () => [...calls.values()].map(callView),
      call: (sid) => {
        const call = calls.get(sid)
        return call === undefined ? undefined : callView(call)
      },
      messages: () => [...messages.values()].map(messageView),
      configureNumber: (number) =>
        Effect.sync(() => {
          const known = numbers.get(number.phoneNumber)
          if (known === undefined) {
            numbers.set(number.phoneNumber, { sid: newSid("PN"), dateCreated: now(), settings: number })
          } else {
            known.settings = { ...known.settings, ...number }
          }
          changed()
        }),
      throttle: (count) => Effect.sync(() => void (throttled = count)),
      holdStatusCallbacks: Effect.sync(() => {
        const held = callbacksHeld ?? Deferred.makeUnsafe<void>()
        callbacksHeld = held
        return Effect.sync(() => {
          if (callbacksHeld === held) callbacksHeld = undefined
          Deferred.doneUnsafe(held, Effect.void)
        })
      }),
      waitFor,
      awaitCall: (predicate = () => true) => waitFor(() => [...calls.values()].map(callView).find(predicate)),
      awaitCallDone: (sid) => waitFor(() => calls.get(sid)?.done === true ? callView(calls.get(sid)!) : undefined),
      remoteHangUp: (sid) =>
        Effect.sync(() => {
          const call = calls.get(sid)
          if (call !== undefined) Deferred.doneUnsafe(call.personHangsUp, Effect.void)
        }),
      incomingCall: ({ caller, from, to }) =>
        Effect.gen(function*() {
          const number = numbers.get(to)
          const voiceUrl = number?.settings.voiceUrl
          if (number === undefined || voiceUrl === undefined) {
            return yield* Effect.die(new Error(`${to} is not one of the fake's numbers with a voice webhook`))
          }
          const callback = number.settings.statusCallback
          const call = newCall({
            direction: "inbound",
            from,
            to,
            outcome: caller ?? "conversation",
            request: undefined,
            statusCallback: callback === undefined
              ? undefined
              : { url: callback, method: number.settings.statusCallbackMethod ?? "POST" },
            // A number's "call status changes" webhook hears only the end of the call.
            events: new Set(["completed"]),
            machineDetection: undefined,
            timeoutMs: 600_000
          })
          yield* Effect.forkIn(inbound(call, voiceUrl, number.settings.voiceMethod ?? "POST"), scope)
          return call.sid
        }),
      incomingSms: ({ body, deliveries = 1, from, to }) =>
        Effect.gen(function*() {
          const number = numbers.get(to)
          if (number?.settings.smsUrl === undefined) {
            return yield* Effect.die(new Error(`${to} is not one of the fake's numbers with a messaging webhook`))
          }
          const message: MessageState = {
            sid: newSid("SM"),
            direction: "inbound",
            from,
            to,
            body,
            dateCreated: now(),
            statusCallback: undefined,
            status: "received",
            progress: ["received"],
            errorCode: undefined,
            dateSent: now(),
            done: true
          }
          messages.set(message.sid, message)
          const params = new URLSearchParams({
            AccountSid: accountSid,
            ApiVersion: API_VERSION,
            Body: body,
            From: from,
            MessageSid: message.sid,
            NumMedia: "0",
            NumSegments: "1",
            SmsMessageSid: message.sid,
            SmsSid: message.sid,
            SmsStatus: "received",
            To: to
          })
          const url = number.settings.smsUrl
          const method = number.settings.smsMethod ?? "POST"
          const signature = method === "GET" ? sign(withQuery(url, params)) : sign(url, params)
          const idempotencyToken = `${message.sid}-${hex("sms")}`
          const answers: Array<Webhook> = []
          for (let i = 0; i < deliveries; i++) {
            answers.push(yield* request("sms", message.sid, url, method, params, { signature, idempotencyToken }))
          }
          return answers
        }),
      forgeWebhook: ({ forgery, method = "POST", params, url }) => {
        const form = new URLSearchParams(params)
        const signature = typeof forgery === "object"
          ? forgery.header
          : forgery === "missing"
          ? undefined
          : forgery === "wrong-token"
          ? TwilioSignature.sign(`${authToken}x`, url, form)
          : forgery === "other-url"
          ? sign(url.replace(/^(\w+:\/\/)[^/]+/, "$1attacker.example"), form)
          : sign(url, form)
        if (forgery === "tampered") {
          const first = [...form.keys()][0]
          if (first === undefined) form.set("Body", "tampered")
          else form.set(first, `${form.get(first)}0`)
        }
        return request("forged", "", url, method, form, { signature, idempotencyToken: hex("forged") })
      },
      sign
    }
    return fake
  })
