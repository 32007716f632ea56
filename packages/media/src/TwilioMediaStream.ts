// One concept over 500 lines: one wire format, both directions, its per-frame fast path beside the Schemas it matches.
/**
 * The Twilio Media Streams wire format: the JSON text frames of a bidirectional stream
 * (`<Connect><Stream>`), both directions, as Effect Schemas with a pure `decode`/`encode`.
 *
 * Owns: the frame envelopes and their fields, nothing else. Pure: text in, plain data out and
 * back; no socket, no logging, no hang-up (the transport and the carrier adapter own those).
 * The daemon's media endpoint decodes what the carrier sends (`decode`) and encodes what it
 * sends back (`encode`); the simulated carrier, a client, does the opposite (`encode` of
 * inbound messages, `decodeOutbound`), so both directions are here.
 *
 * Messages (Twilio's "WebSocket messages" page, twilio.com/docs/voice/media-streams/websocket-messages):
 * - from the carrier (`InboundMessage`): `connected`, `start`, `media`, `mark`, `dtmf`, `stop`;
 * - to the carrier (`OutboundMessage`): `media` (`OutboundMedia`), `mark` (`OutboundMark`), `clear`;
 * - any other `event`, in either direction, decodes to `Unknown` holding the parsed JSON, so a
 *   new event type is logged by the caller, not thrown (habit 21).
 * Decoded values carry a `_tag` instead of `event` because `media` and `mark` exist in both
 * directions with different fields; otherwise they keep the wire's field names and nesting.
 *
 * Numbers: `sequenceNumber`, `media.chunk` and `media.timestamp` are decimal strings on the
 * wire and numbers here (non-negative safe integers; `timestamp` is milliseconds since the
 * stream started, on the carrier's clock). Only the canonical spelling is accepted (digits, no
 * sign, no leading zero, no exponent, at most 2^53 − 1), so every accepted value re-encodes
 * to the same text; "01", "-1", "1e3" or 20 digits are decode errors. `mediaFormat.sampleRate`
 * and `channels` are JSON numbers on the wire and stay integers.
 *
 * Byte-exact round trip: `encode(decode(text))` equals `text` whenever `text` is compact JSON
 * (no whitespace outside strings, `JSON.stringify` escaping) with exactly the documented
 * fields in the documented order, which is what `encode` writes: so `encode` ∘ `decode` is the
 * identity on our own encoding. Vendor text with other whitespace (the samples on Twilio's
 * page are indented by hand) round-trips to its canonical form, `JSON.stringify(JSON.parse(text))`.
 * Fields a future Twilio adds to a known event are ignored on decode and not re-encoded.
 * `customParameters` is optional (a stream without `<Parameter>`s may omit it).
 *
 * Frames: one text frame is one message. Audio is base64 of raw μ-law (G.711, 8 kHz, mono,
 * 8 bits per sample, no header); Twilio documents no chunk size (20 ms = 160 bytes is the
 * common one), so nothing here depends on it. The payload stays a base64 string: decoding a
 * frame costs one `JSON.parse` and a check of the envelope, and turning the payload into
 * samples is the caller's step (`Buffer.from(payload, "base64")`, then `MuLaw.decode`). The
 * transport caps the frame size.
 *
 * Fast path: the per-frame messages (`media` and `mark` from the carrier; `media`, `mark`
 * and `clear` to it) are checked by hand against exactly their Schema's rules and built
 * directly, both ways; whatever the hand check does not accept goes through the Schema, so
 * errors are the Schema's. `decodeViaSchema`, `decodeOutboundViaSchema` and `encodeViaSchema`
 * are the Schema path alone, and property tests pin that both agree on valid and malformed
 * input (value, field order, error, text). Measured on this machine (Node 24, 2 cores,
 * `test/bench/media-codecs.ts`), per 20 ms frame: `decode` of a `media` frame 1.35 µs (3.5 µs
 * through the Schema; `JSON.parse` alone is 0.9 µs), `encode` of an `OutboundMedia` 0.5 µs
 * (1.4 µs), base64 and μ-law to PCM 0.8 µs. The hand checks sit here, beside the Schemas they
 * restate, which is why this module is over 600 lines.
 *
 * Failures: a frame that is not JSON, not an object, has no string `event`, or is a known
 * event with missing or mistyped fields decodes to a `MediaStreamDecodeError` (never a
 * throw). Its `detail` names the field path and the expectation, never the rejected value:
 * custom parameters carry the per-call token. `encode` throws only for values that break
 * their own type at run time (NaN, negative or fractional numbers: caller bugs).
 *
 * Buffer ownership: decoded values are fresh objects; `Unknown.json` is the parsed frame
 * itself. Nothing keeps a reference to its input.
 *
 * @since 0.1.0
 */
import { Data, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"

/** Canonical decimal text of a non-negative integer of at most 16 digits. */
const CANONICAL_UINT = /^(?:0|[1-9][0-9]{0,15})$/

/**
 * A non-negative safe integer written as canonical decimal text.
 */
const UintFromString = Schema.String.check(
  Schema.isPattern(CANONICAL_UINT, {
    message: "Expected a non-negative integer in decimal (no sign, leading zero or exponent)"
  })
).pipe(
  Schema.decodeTo(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    SchemaTransformation.transform({ decode: Number, encode: String })
  )
)

/**
 * Which side of the call a `media` frame carries: `inbound` is what the carrier receives from
 * the other party, `outbound` what it plays to them (only unidirectional `both_tracks`
 * streams deliver `outbound`).
 *
 * @category schemas
 */
export const Track = Schema.Literals(["inbound", "outbound"])

/**
 * @category models
 */
export type Track = typeof Track.Type

/**
 * The audio format of a stream as `start` announces it. Twilio documents it as always
 * `audio/x-mulaw`, 8000 Hz, 1 channel; it is decoded as read, and the caller refuses others.
 *
 * @category schemas
 */
export const MediaFormat = Schema.Struct({
  encoding: Schema.String,
  sampleRate: Schema.Int,
  channels: Schema.Int
})

/**
 * @category models
 */
export type MediaFormat = typeof MediaFormat.Type

/**
 * The only format Twilio streams: μ-law, 8 kHz, mono.
 *
 * @category constructors
 */
export const mulaw8k: MediaFormat = { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 }

/**
 * Builds the schema of one message: the wire object (with `event`) on the encoded side, the
 * same fields on their type side with `_tag` instead of `event` on the decoded side. The
 * wire's field order is the order of `fields`.
 */
const message = <const Event extends string, const Tag extends string, const Fields extends Schema.Struct.Fields>(
  event: Event,
  tag: Tag,
  fields: Fields
) =>
  Schema.Struct({ event: Schema.Literal(event), ...fields }).pipe(
    Schema.decodeTo(
      Schema.toType(Schema.Struct({ _tag: Schema.Literal(tag), ...fields })),
      // TypeScript cannot follow a rest spread over generic fields: the cast only restates
      // that the two sides differ in `event` versus `_tag`, which the tests pin.
      renameEvent(event, tag) as never
    )
  )

const renameEvent = (event: string, tag: string) =>
  SchemaTransformation.transform<{ readonly [key: string]: unknown }, { readonly [key: string]: unknown }>({
    decode: ({ event: _, ...fields }) => ({ _tag: tag, ...fields }),
    encode: ({ _tag: _, ...fields }) => ({ event, ...fields })
  })

const CustomParameters = Schema.Record(Schema.String, Schema.String)

/**
 * `connected`: the first frame of every stream, `{"event":"connected","protocol":"Call","version":"1.0.0"}`.
 *
 * @category schemas
 */
export const Connected = message("connected", "Connected", { protocol: Schema.String, version: Schema.String })

/**
 * @category models
 */
export type Connected = typeof Connected.Type

/**
 * `start`: sent once, right after `connected`, with the stream's and the call's ids, the
 * tracks, the audio format and the `<Parameter>`s of the TwiML (`customParameters`).
 *
 * @category schemas
 */
export const Start = message("start", "Start", {
  sequenceNumber: UintFromString,
  start: Schema.Struct({
    accountSid: Schema.String,
    streamSid: Schema.String,
    callSid: Schema.String,
    tracks: Schema.Array(Track),
    mediaFormat: MediaFormat,
    customParameters: Schema.optionalKey(CustomParameters)
  }),
  streamSid: Schema.String
})

/**
 * @category models
 */
export type Start = typeof Start.Type

/**
 * `media` from the carrier: `chunk` counts from 1 per track, `timestamp` is the presentation
 * time in ms since the stream started, `payload` is base64 μ-law.
 *
 * @category schemas
 */
export const Media = message("media", "Media", {
  sequenceNumber: UintFromString,
  media: Schema.Struct({ track: Track, chunk: UintFromString, timestamp: UintFromString, payload: Schema.String }),
  streamSid: Schema.String
})

/**
 * @category models
 */
export type Media = typeof Media.Type

/**
 * `mark` from the carrier: the echo of an `OutboundMark` once the audio sent before it has
 * played, or at once after a `clear` (so an echo alone does not prove the audio was heard).
 *
 * @category schemas
 */
export const Mark = message("mark", "Mark", {
  sequenceNumber: UintFromString,
  streamSid: Schema.String,
  mark: Schema.Struct({ name: Schema.String })
})

/**
 * @category models
 */
export type Mark = typeof Mark.Type

/**
 * `dtmf`: a key the person pressed (bidirectional streams only); `track` is `inbound_track`.
 *
 * @category schemas
 */
export const Dtmf = message("dtmf", "Dtmf", {
  streamSid: Schema.String,
  sequenceNumber: UintFromString,
  dtmf: Schema.Struct({ track: Schema.String, digit: Schema.String })
})

/**
 * @category models
 */
export type Dtmf = typeof Dtmf.Type

/**
 * `stop`: the stream stopped or the call ended; the last frame.
 *
 * @category schemas
 */
export const Stop = message("stop", "Stop", {
  sequenceNumber: UintFromString,
  stop: Schema.Struct({ accountSid: Schema.String, callSid: Schema.String }),
  streamSid: Schema.String
})

/**
 * @category models
 */
export type Stop = typeof Stop.Type

/**
 * `media` to the carrier: base64 μ-law of any length, no file header; the carrier buffers it
 * and plays it in order.
 *
 * @category schemas
 */
export const OutboundMedia = message("media", "OutboundMedia", {
  streamSid: Schema.String,
  media: Schema.Struct({ payload: Schema.String })
})

/**
 * @category models
 */
export type OutboundMedia = typeof OutboundMedia.Type

/**
 * `mark` to the carrier: asks for an echo (`Mark`) once everything sent before it has played.
 *
 * @category schemas
 */
export const OutboundMark = message("mark", "OutboundMark", {
  streamSid: Schema.String,
  mark: Schema.Struct({ name: Schema.String })
})

/**
 * @category models
 */
export type OutboundMark = typeof OutboundMark.Type

/**
 * `clear`: drop all audio the carrier has buffered and not played; pending marks come back.
 *
 * @category schemas
 */
export const Clear = message("clear", "Clear", { streamSid: Schema.String })

/**
 * @category models
 */
export type Clear = typeof Clear.Type

/**
 * A frame whose `event` this module does not know (in the direction it was decoded), kept as
 * parsed so the caller can log it once; `encode` writes `json` back as it is.
 *
 * @category models
 */
export interface Unknown {
  readonly _tag: "Unknown"
  readonly event: string
  readonly json: { readonly [key: string]: unknown }
}

/**
 * What the carrier sends.
 *
 * @category models
 */
export type InboundMessage = Connected | Start | Media | Mark | Dtmf | Stop | Unknown

/**
 * What is sent to the carrier.
 *
 * @category models
 */
export type OutboundMessage = OutboundMedia | OutboundMark | Clear | Unknown

/**
 * Either direction.
 *
 * @category models
 */
export type Message = InboundMessage | OutboundMessage

/**
 * Why a text frame is not a message: `NotJson`, `NotAnObject` (an array, a string, null…),
 * `MissingEvent` (no string `event` field), or `InvalidMessage` (a known `event` whose fields
 * are missing or mistyped; `event` says which). `detail` names the path and the expectation
 * and never quotes the rejected value.
 *
 * @category errors
 */
export class MediaStreamDecodeError extends Data.TaggedError("MediaStreamDecodeError")<{
  readonly reason: "NotJson" | "NotAnObject" | "MissingEvent" | "InvalidMessage"
  readonly event?: string
  readonly detail: string
}> {
  override get message(): string {
    return `Not a Twilio Media Streams message (${this.reason}${
      this.event === undefined ? "" : ` ${this.event}`
    }): ${this.detail}`
  }
}

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

type Fields = { readonly [key: string]: unknown }

/**
 * How one known event decodes: its Schema, and for the per-frame messages a hand check of
 * exactly the Schema's rules that builds the same value (fields in the same order), or
 * answers `undefined` for anything it does not accept, which then goes through the Schema.
 */
interface Decoder<A> {
  readonly schema: (json: unknown) => Result.Result<A, Schema.SchemaError>
  readonly fast?: (fields: Fields) => A | undefined
}

const isFields = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `UintFromString` by hand: the number, or -1 when the Schema would not accept `value`. */
const uintOf = (value: unknown): number => {
  if (typeof value !== "string" || !CANONICAL_UINT.test(value)) return -1
  const n = Number(value)
  return n <= Number.MAX_SAFE_INTEGER ? n : -1
}

const fastMedia = (fields: Fields): Media | undefined => {
  const sequenceNumber = uintOf(fields["sequenceNumber"])
  const media = fields["media"]
  const streamSid = fields["streamSid"]
  if (sequenceNumber < 0 || !isFields(media) || typeof streamSid !== "string") return undefined
  const track = media["track"]
  const chunk = uintOf(media["chunk"])
  const timestamp = uintOf(media["timestamp"])
  const payload = media["payload"]
  if ((track !== "inbound" && track !== "outbound") || chunk < 0 || timestamp < 0 || typeof payload !== "string") {
    return undefined
  }
  return { _tag: "Media", sequenceNumber, media: { track, chunk, timestamp, payload }, streamSid }
}

const fastMark = (fields: Fields): Mark | undefined => {
  const sequenceNumber = uintOf(fields["sequenceNumber"])
  const streamSid = fields["streamSid"]
  const mark = fields["mark"]
  if (sequenceNumber < 0 || typeof streamSid !== "string" || !isFields(mark)) return undefined
  const name = mark["name"]
  return typeof name === "string" ? { _tag: "Mark", sequenceNumber, streamSid, mark: { name } } : undefined
}

const fastOutboundMedia = (fields: Fields): OutboundMedia | undefined => {
  const streamSid = fields["streamSid"]
  const media = fields["media"]
  if (typeof streamSid !== "string" || !isFields(media)) return undefined
  const payload = media["payload"]
  return typeof payload === "string" ? { _tag: "OutboundMedia", streamSid, media: { payload } } : undefined
}

const fastOutboundMark = (fields: Fields): OutboundMark | undefined => {
  const streamSid = fields["streamSid"]
  const mark = fields["mark"]
  if (typeof streamSid !== "string" || !isFields(mark)) return undefined
  const name = mark["name"]
  return typeof name === "string" ? { _tag: "OutboundMark", streamSid, mark: { name } } : undefined
}

const fastClear = (fields: Fields): Clear | undefined => {
  const streamSid = fields["streamSid"]
  return typeof streamSid === "string" ? { _tag: "Clear", streamSid } : undefined
}

const inboundDecoders: ReadonlyMap<string, Decoder<InboundMessage>> = new Map<string, Decoder<InboundMessage>>([
  ["connected", { schema: Schema.decodeUnknownResult(Connected) }],
  ["start", { schema: Schema.decodeUnknownResult(Start) }],
  ["media", { schema: Schema.decodeUnknownResult(Media), fast: fastMedia }],
  ["mark", { schema: Schema.decodeUnknownResult(Mark), fast: fastMark }],
  ["dtmf", { schema: Schema.decodeUnknownResult(Dtmf) }],
  ["stop", { schema: Schema.decodeUnknownResult(Stop) }]
])

const outboundDecoders: ReadonlyMap<string, Decoder<OutboundMessage>> = new Map<string, Decoder<OutboundMessage>>([
  ["media", { schema: Schema.decodeUnknownResult(OutboundMedia), fast: fastOutboundMedia }],
  ["mark", { schema: Schema.decodeUnknownResult(OutboundMark), fast: fastOutboundMark }],
  ["clear", { schema: Schema.decodeUnknownResult(Clear), fast: fastClear }]
])

const decodeWith = <A>(
  known: ReadonlyMap<string, Decoder<A>>,
  fastPath: boolean,
  text: string
): Result.Result<A | Unknown, MediaStreamDecodeError> => {
  const parsed = Result.try({
    try: (): unknown => JSON.parse(text),
    // the SyntaxError quotes the input, which may hold a token: not kept
    catch: () => new MediaStreamDecodeError({ reason: "NotJson", detail: `${text.length} characters of invalid JSON` })
  })
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const json = parsed.success
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return Result.fail(
      new MediaStreamDecodeError({
        reason: "NotAnObject",
        detail: `expected a JSON object, got ${json === null ? "null" : Array.isArray(json) ? "an array" : typeof json}`
      })
    )
  }
  const fields = json as Fields
  const event = fields["event"]
  if (typeof event !== "string") {
    return Result.fail(
      new MediaStreamDecodeError({ reason: "MissingEvent", detail: "expected a string field `event`" })
    )
  }
  const decoder = known.get(event)
  if (decoder === undefined) return Result.succeed({ _tag: "Unknown", event, json: fields })
  if (fastPath && decoder.fast !== undefined) {
    const value = decoder.fast(fields)
    if (value !== undefined) return Result.succeed(value)
  }
  const decoded = decoder.schema(json)
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
  const [first] = formatIssue(decoded.failure.issue).issues
  const path = first?.path?.map((key) => typeof key === "object" ? String(key.key) : String(key)).join(".")
  return Result.fail(
    new MediaStreamDecodeError({
      reason: "InvalidMessage",
      event,
      detail: `${path === undefined || path === "" ? "" : `${path}: `}${first?.message ?? "invalid"}`
    })
  )
}

/**
 * Decodes one text frame from the carrier. Never throws: malformed frames fail with a
 * `MediaStreamDecodeError`, unknown events succeed as `Unknown`.
 *
 * `media` and `mark` take the fast path (module header): the result is always
 * `decodeViaSchema`'s.
 *
 * @category decoding
 */
export const decode = (text: string): Result.Result<InboundMessage, MediaStreamDecodeError> =>
  decodeWith(inboundDecoders, true, text)

/**
 * `decode` with every known event through its Schema, no fast path: the reference `decode`
 * agrees with.
 *
 * @category decoding
 */
export const decodeViaSchema = (text: string): Result.Result<InboundMessage, MediaStreamDecodeError> =>
  decodeWith(inboundDecoders, false, text)

/**
 * Decodes one text frame sent to the carrier (the simulated carrier's side). Events other
 * than `media`, `mark` and `clear` decode to `Unknown`. All three take the fast path (module
 * header): the result is always `decodeOutboundViaSchema`'s.
 *
 * @category decoding
 */
export const decodeOutbound = (text: string): Result.Result<OutboundMessage, MediaStreamDecodeError> =>
  decodeWith(outboundDecoders, true, text)

/**
 * `decodeOutbound` with every known event through its Schema, no fast path: the reference
 * `decodeOutbound` agrees with.
 *
 * @category decoding
 */
export const decodeOutboundViaSchema = (text: string): Result.Result<OutboundMessage, MediaStreamDecodeError> =>
  decodeWith(outboundDecoders, false, text)

const encodeConnected = Schema.encodeSync(Connected)
const encodeStart = Schema.encodeSync(Start)
const encodeMedia = Schema.encodeSync(Media)
const encodeMark = Schema.encodeSync(Mark)
const encodeDtmf = Schema.encodeSync(Dtmf)
const encodeStop = Schema.encodeSync(Stop)
const encodeOutboundMedia = Schema.encodeSync(OutboundMedia)
const encodeOutboundMark = Schema.encodeSync(OutboundMark)
const encodeClear = Schema.encodeSync(Clear)

/**
 * `encode` with every message through its Schema, no fast path: the reference `encode` agrees
 * with. Throws a `SchemaError` for a value that breaks its own type at run time.
 *
 * @category encoding
 */
export const encodeViaSchema = (message: Message): string => {
  switch (message._tag) {
    case "Connected":
      return JSON.stringify(encodeConnected(message))
    case "Start":
      return JSON.stringify(encodeStart(message))
    case "Media":
      return JSON.stringify(encodeMedia(message))
    case "Mark":
      return JSON.stringify(encodeMark(message))
    case "Dtmf":
      return JSON.stringify(encodeDtmf(message))
    case "Stop":
      return JSON.stringify(encodeStop(message))
    case "OutboundMedia":
      return JSON.stringify(encodeOutboundMedia(message))
    case "OutboundMark":
      return JSON.stringify(encodeOutboundMark(message))
    case "Clear":
      return JSON.stringify(encodeClear(message))
    case "Unknown":
      return JSON.stringify(message.json)
  }
}

/** What `UintFromString` encodes: a non-negative safe integer (-0 included, written "0"). */
const isUint = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

// The per-frame messages written directly: the same bytes as `JSON.stringify` of the Schema's
// encoding (fields in the same order; numbers are canonical digits and tracks are literals, so
// only the free strings need `JSON.stringify`), or `undefined` for a value the Schema would
// refuse, which then goes through the Schema to throw its error.

const fastEncodeMedia = ({ sequenceNumber, media, streamSid }: Media): string | undefined => {
  if (!isUint(sequenceNumber) || !isFields(media) || typeof streamSid !== "string") return undefined
  const { track, chunk, timestamp, payload } = media
  if ((track !== "inbound" && track !== "outbound") || !isUint(chunk) || !isUint(timestamp)) return undefined
  if (typeof payload !== "string") return undefined
  return `{"event":"media","sequenceNumber":"${String(sequenceNumber)}","media":{"track":"${track}","chunk":"${
    String(chunk)
  }","timestamp":"${String(timestamp)}","payload":${JSON.stringify(payload)}},"streamSid":${JSON.stringify(streamSid)}}`
}

const fastEncodeMark = ({ sequenceNumber, streamSid, mark }: Mark): string | undefined =>
  isUint(sequenceNumber) && typeof streamSid === "string" && isFields(mark) && typeof mark.name === "string"
    ? `{"event":"mark","sequenceNumber":"${String(sequenceNumber)}","streamSid":${
      JSON.stringify(streamSid)
    },"mark":{"name":${JSON.stringify(mark.name)}}}`
    : undefined

const fastEncodeOutboundMedia = ({ streamSid, media }: OutboundMedia): string | undefined =>
  typeof streamSid === "string" && isFields(media) && typeof media.payload === "string"
    ? `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":${JSON.stringify(media.payload)}}}`
    : undefined

const fastEncodeOutboundMark = ({ streamSid, mark }: OutboundMark): string | undefined =>
  typeof streamSid === "string" && isFields(mark) && typeof mark.name === "string"
    ? `{"event":"mark","streamSid":${JSON.stringify(streamSid)},"mark":{"name":${JSON.stringify(mark.name)}}}`
    : undefined

const fastEncodeClear = ({ streamSid }: Clear): string | undefined =>
  typeof streamSid === "string" ? `{"event":"clear","streamSid":${JSON.stringify(streamSid)}}` : undefined

/**
 * Encodes a message of either direction as the compact JSON text of one frame, fields in the
 * order of Twilio's samples, numbers as decimal strings where the wire has strings. `Unknown`
 * is written back as it was parsed. Throws a `SchemaError` only for a value that breaks its
 * own type at run time (a NaN, negative or fractional number).
 *
 * `Media`, `Mark`, `OutboundMedia`, `OutboundMark` and `Clear` take the fast path (module
 * header): the text, or the error thrown, is always `encodeViaSchema`'s.
 *
 * @category encoding
 */
export const encode = (message: Message): string => {
  switch (message._tag) {
    case "Media":
      return fastEncodeMedia(message) ?? encodeViaSchema(message)
    case "Mark":
      return fastEncodeMark(message) ?? encodeViaSchema(message)
    case "OutboundMedia":
      return fastEncodeOutboundMedia(message) ?? encodeViaSchema(message)
    case "OutboundMark":
      return fastEncodeOutboundMark(message) ?? encodeViaSchema(message)
    case "Clear":
      return fastEncodeClear(message) ?? encodeViaSchema(message)
    case "Connected":
    case "Start":
    case "Dtmf":
    case "Stop":
    case "Unknown":
      return encodeViaSchema(message)
  }
}

/**
 * An `OutboundMedia` message: `payload` is base64 of raw μ-law at 8 kHz.
 *
 * @category constructors
 */
export const outboundMedia = (streamSid: string, payload: string): OutboundMedia => ({
  _tag: "OutboundMedia",
  streamSid,
  media: { payload }
})

/**
 * An `OutboundMark` message named `name`.
 *
 * @category constructors
 */
export const outboundMark = (streamSid: string, name: string): OutboundMark => ({
  _tag: "OutboundMark",
  streamSid,
  mark: { name }
})

/**
 * A `Clear` message.
 *
 * @category constructors
 */
export const clear = (streamSid: string): Clear => ({ _tag: "Clear", streamSid })
