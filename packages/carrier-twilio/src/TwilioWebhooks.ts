/**
 * What Twilio's webhooks post (twilio.com/docs/voice/api/call-resource, twilio.com/docs/messaging/api/message-resource,
 * twilio.com/docs/messaging/guides/webhook-request), decoded, and what a
 * call's progress report means as our `CallEvent`. Pure: form parameters in, data out.
 *
 * Bodies are `application/x-www-form-urlencoded` (`parseForm`). Each decoder reads the
 * parameters this engine uses, under Twilio's own names, and ignores every other one: Twilio
 * "will occasionally add new parameters without advance notice" (and signature validation,
 * TwilioSignature, needs them all, so the daemon validates the parsed form, then decodes it).
 * A decoder fails, with one sentence, only when a parameter it needs is missing or malformed.
 * A parameter it reads that holds the NUL character is malformed: Twilio never sends one, and
 * PostgreSQL cannot store it (an SMS stored with it, or a sid looked up with it, failed in the
 * database with a 500).
 * `CallStatus` is one of the eight documented values (stable since the 2010-04-01 API);
 * `MessageStatus` is kept as a string, its list having grown over the years
 * (`messageStatuses` has today's).
 *
 * A status callback becomes at most one `CallEvent`, at the callback's `Timestamp` (RFC 2822,
 * second precision) or, when it has none or it does not parse, at `now`:
 *
 * | `CallStatus` | event |
 * | - | - |
 * | `queued`, `initiated` | none |
 * | `ringing` | `Ringing` |
 * | `in-progress` (the `answered` event) | `Answered`, `answeredBy` from `AnsweredBy` |
 * | `completed` | `Ended` `remote-hangup` |
 * | `busy`, `no-answer`, `failed` | `Ended` with that reason |
 * | `canceled` | `Ended` `local-hangup` |
 *
 * The final callback (`completed`) also carries Twilio's `CallDuration`, which `callDuration`
 * reads: the call's duration as Twilio bills and shows it, which the record takes over the
 * engine's own measure (CarrierCalls).
 *
 * `AnsweredBy` (answering machine detection): `machine_start`, `machine_end_beep`,
 * `machine_end_silence`, `machine_end_other` (any `machine…`) and `fax` are a `machine`;
 * `human`, `unknown` (AMD could not tell) and no `AnsweredBy` at all are a `human`.
 *
 * Who hung up: Twilio's `completed` does not say, so it is `remote-hangup` here; when we end a
 * call, TwilioCarrier's `hangUp` reports `Ended` `local-hangup` itself as soon as Twilio has
 * accepted the hang-up, and `CallEvents` keeps the first `Ended` of a call, so the `completed`
 * callback that follows changes nothing. `canceled` is always ours: Twilio cancels a call only
 * when asked through its REST API while the call is queued or ringing, and only this account's
 * credentials can ask.
 *
 * @since 0.1.0
 */
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Option, Result, Schema, SchemaIssue } from "effect"
import type { Params } from "./TwilioSignature.ts"

/**
 * A webhook body that lacks a parameter this engine needs, or has one malformed.
 *
 * @category errors
 */
export class TwilioWebhookError extends Schema.TaggedError<TwilioWebhookError>()("TwilioWebhookError", {
  message: Schema.String
}) {}

/**
 * The parameters of a form body: a key sent once has its value, a repeated key its values in
 * order (`+` is a space, percent-escapes are decoded as UTF-8). Every key is the body's own,
 * whatever its name: `constructor`, `toString` or `__proto__` are parameters like any other
 * (the body is read before its signature is checked, so it is anyone's).
 *
 * @category decoding
 */
export const parseForm = (body: string): Params => {
  const params = new Map<string, string | Array<string>>()
  for (const [key, value] of new URLSearchParams(body)) {
    const seen = params.get(key)
    params.set(key, seen === undefined ? value : typeof seen === "string" ? [seen, value] : [...seen, value])
  }
  // Own data properties, even for `__proto__` (an assignment would set the prototype instead).
  return Object.fromEntries(params)
}

/**
 * The status of a call (`call_enum_status`), plus `initiated`, which only status callbacks
 * carry.
 *
 * @category schemas
 */
export const CallStatus = Schema.Literals([
  "queued",
  "initiated",
  "ringing",
  "in-progress",
  "completed",
  "busy",
  "failed",
  "no-answer",
  "canceled"
])

/**
 * @category models
 */
export type CallStatus = typeof CallStatus.Type

/** Text as Twilio sends it: never the NUL character, which PostgreSQL `text` cannot hold. */
const Text = Schema.String.check(
  Schema.makeFilter((s: string) => !s.includes("\u0000") || "must not contain the NUL character (\\u0000)")
)

const NonEmptyText = Text.check(Schema.isNonEmpty())

const optional = Schema.optionalKey(Text)

/**
 * A call status callback (`StatusCallback` of a call we placed): the voice request parameters
 * plus the progress extras.
 *
 * @category schemas
 */
export const StatusCallback = Schema.Struct({
  CallSid: NonEmptyText,
  AccountSid: NonEmptyText,
  CallStatus,
  From: optional,
  To: optional,
  Direction: optional,
  ParentCallSid: optional,
  AnsweredBy: optional,
  /** RFC 2822, UTC, e.g. `Sun, 25 Mar 2018 09:53:19 +0000`. */
  Timestamp: optional,
  /** From `0`; callbacks are separate requests and may arrive out of order. */
  SequenceNumber: optional,
  CallbackSource: optional,
  /** Seconds, in the `completed` event only. */
  CallDuration: optional
})

/**
 * @category models
 */
export type StatusCallback = typeof StatusCallback.Type

/**
 * The request to a call's `Url` (an outbound call we placed, once answered) or to a number's
 * voice URL (an incoming call).
 *
 * @category schemas
 */
export const VoiceRequest = Schema.Struct({
  CallSid: NonEmptyText,
  AccountSid: NonEmptyText,
  From: Text,
  To: Text,
  CallStatus,
  /** `inbound`, `outbound-api` (placed through the REST API), `outbound-dial` (a `<Dial>` leg). */
  Direction: Text,
  AnsweredBy: optional,
  ForwardedFrom: optional,
  CallerName: optional,
  ParentCallSid: optional
})

/**
 * @category models
 */
export type VoiceRequest = typeof VoiceRequest.Type

/**
 * An incoming message to one of our numbers. `Body` may be empty (a picture alone); the media
 * items (`MediaUrl{N}`, `MediaContentType{N}`) are not decoded.
 *
 * @category schemas
 */
export const IncomingMessage = Schema.Struct({
  MessageSid: NonEmptyText,
  AccountSid: NonEmptyText,
  From: Text,
  To: Text,
  Body: Text,
  MessagingServiceSid: optional,
  NumMedia: optional,
  NumSegments: optional
})

/**
 * @category models
 */
export type IncomingMessage = typeof IncomingMessage.Type

/**
 * The statuses a message can report today (`message_enum_status`).
 *
 * @category models
 */
export const messageStatuses = [
  "queued",
  "sending",
  "sent",
  "failed",
  "delivered",
  "undelivered",
  "receiving",
  "received",
  "accepted",
  "scheduled",
  "read",
  "partially_delivered",
  "canceled"
] as const

/**
 * A message status callback (`StatusCallback` of a message we sent). `ErrorCode` comes with
 * `failed` and `undelivered`.
 *
 * @category schemas
 */
export const MessageStatusCallback = Schema.Struct({
  MessageSid: NonEmptyText,
  AccountSid: NonEmptyText,
  MessageStatus: NonEmptyText,
  From: optional,
  To: optional,
  ErrorCode: optional,
  RawDlrDoneDate: optional
})

/**
 * @category models
 */
export type MessageStatusCallback = typeof MessageStatusCallback.Type

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const decoder = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, what: string) => {
  const decode = Schema.decodeUnknownResult(schema)
  return (params: Params): Result.Result<S["Type"], TwilioWebhookError> =>
    Result.mapError(decode(params), (error) => {
      const [first] = formatIssue(error.issue).issues
      const key = first?.path?.map((k) => typeof k === "object" ? String(k.key) : String(k)).join(".")
      return new TwilioWebhookError({
        message: `Not a Twilio ${what}: ${key === undefined || key === "" ? "" : `${key}: `}${
          first?.message ?? "invalid"
        }`
      })
    })
}

/**
 * @category decoding
 */
export const decodeStatusCallback = decoder(StatusCallback, "call status callback")

/**
 * @category decoding
 */
export const decodeVoiceRequest = decoder(VoiceRequest, "voice request")

/**
 * @category decoding
 */
export const decodeIncomingMessage = decoder(IncomingMessage, "incoming message")

/**
 * @category decoding
 */
export const decodeMessageStatusCallback = decoder(MessageStatusCallback, "message status callback")

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const rfc2822 = new RegExp(
  "^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), *)?(?<day>\\d{1,2}) +(?<month>[A-Z][a-z]{2}) +(?<year>\\d{4}) +" +
    "(?<hour>\\d{2}):(?<minute>\\d{2})(?::(?<second>\\d{2}))? +(?<zone>[+-]\\d{4}|UT|GMT|Z)$"
)

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const daysIn = (year: number, month: number): number =>
  month === 1 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month + 1) ? 30 : 31

/**
 * The instant (epoch ms) of an RFC 2822 date-time as Twilio writes `Timestamp`
 * (`Sun, 25 Mar 2018 09:53:19 +0000`; also `GMT`/`UT`/`Z`, and without the weekday or the
 * seconds); none for anything else (the weekday is not checked against the date).
 *
 * @category decoding
 */
export const parseRfc2822 = (text: string): Option.Option<number> => {
  const fields = rfc2822.exec(text.trim())?.groups
  if (fields === undefined) return Option.none()
  const month = months.indexOf(fields.month!)
  const year = Number(fields.year)
  const day = Number(fields.day)
  const [hour, minute, second] = [Number(fields.hour), Number(fields.minute), Number(fields.second ?? "0")]
  if (month < 0 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) {
    return Option.none()
  }
  const zone = fields.zone!
  const offsetMinutes = zone.startsWith("+") || zone.startsWith("-")
    ? (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)))
    : 0
  return Option.some(Date.UTC(year, month, day, hour, minute, second) - offsetMinutes * 60_000)
}

/**
 * Who answered, from answering machine detection's `AnsweredBy` (module header).
 *
 * @category decoding
 */
export const answeredBy = (value: string | undefined): "human" | "machine" =>
  value !== undefined && (value.startsWith("machine") || value === "fax") ? "machine" : "human"

/**
 * The `CallEvent` a status callback reports, if any (module header), at its `Timestamp`, or at
 * `now` (epoch ms) without one.
 *
 * @category decoding
 */
export const callEvent = (callback: StatusCallback, now: number): Option.Option<CallEvent> => {
  const at = callback.Timestamp === undefined ? now : Option.getOrElse(parseRfc2822(callback.Timestamp), () => now)
  switch (callback.CallStatus) {
    case "queued":
    case "initiated":
      return Option.none()
    case "ringing":
      return Option.some({ _tag: "Ringing", at })
    case "in-progress":
      return Option.some({ _tag: "Answered", at, answeredBy: answeredBy(callback.AnsweredBy) })
    case "completed":
      return Option.some({ _tag: "Ended", at, reason: "remote-hangup" })
    case "canceled":
      return Option.some({ _tag: "Ended", at, reason: "local-hangup" })
    case "busy":
    case "no-answer":
    case "failed":
      return Option.some({ _tag: "Ended", at, reason: callback.CallStatus })
  }
}

/** The most seconds a call can report: a year, well beyond Twilio's longest call (24 h). */
const maxCallDurationSec = 366 * 24 * 3600

/**
 * The duration Twilio gives a call in its final status callback: `CallDuration`, whole seconds
 * from the answer to the end, when the call `completed` (it was answered). None for any other
 * status (a call never answered lasted nothing, whatever `CallDuration` says) or when
 * `CallDuration` is not a whole number of seconds.
 *
 * @category decoding
 */
export const callDuration = (callback: StatusCallback): Option.Option<number> => {
  if (callback.CallStatus !== "completed" || callback.CallDuration === undefined) return Option.none()
  if (!/^\d{1,9}$/.test(callback.CallDuration)) return Option.none()
  const seconds = Number(callback.CallDuration)
  return seconds <= maxCallDurationSec ? Option.some(seconds) : Option.none()
}

/**
 * The `Answered` event a voice request reports for a call we placed (`outbound-api`,
 * `in-progress`), at `now`: with answering machine detection on, Twilio requests the call's
 * `Url` once it has decided, with `AnsweredBy`. None for any other request (an incoming call).
 *
 * @category decoding
 */
export const answered = (request: VoiceRequest, now: number): Option.Option<CallEvent> =>
  request.Direction === "outbound-api" && request.CallStatus === "in-progress"
    ? Option.some({ _tag: "Answered", at: now, answeredBy: answeredBy(request.AnsweredBy) })
    : Option.none()
