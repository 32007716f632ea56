import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Goldens from "../test/fixtures/twilio-media-streams.goldens.ts"
import * as TwilioMediaStream from "./TwilioMediaStream.ts"

const canonical = (text: string) => JSON.stringify(JSON.parse(text))
const decoded = <A>(result: Result.Result<A, TwilioMediaStream.MediaStreamDecodeError>): A => {
  if (Result.isFailure(result)) assert.fail(result.failure.message)
  return result.success
}
const failure = (result: Result.Result<unknown, TwilioMediaStream.MediaStreamDecodeError>) => {
  if (Result.isSuccess(result)) assert.fail(`decoded: ${JSON.stringify(result.success)}`)
  return result.failure
}

const SID = "MZXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"

describe("goldens (Twilio's samples verbatim, twilio.com/docs/voice/media-streams/websocket-messages)", () => {
  it("every message from Twilio decodes and re-encodes to its canonical JSON, byte for byte", () => {
    for (const [name, sample] of Object.entries(Goldens.fromTwilio)) {
      const message = decoded(TwilioMediaStream.decode(sample))
      assert.notStrictEqual(message._tag, "Unknown", name)
      assert.strictEqual(TwilioMediaStream.encode(message), canonical(sample), name)
    }
  })
  it("every message to Twilio decodes (carrier side) and re-encodes to its canonical JSON, byte for byte", () => {
    for (const [name, sample] of Object.entries(Goldens.toTwilio)) {
      const message = decoded(TwilioMediaStream.decodeOutbound(sample))
      assert.notStrictEqual(message._tag, "Unknown", name)
      assert.strictEqual(TwilioMediaStream.encode(message), canonical(sample), name)
    }
  })
  it("the samples are not canonical JSON themselves: the comparison canonicalizes the vendor text only", () => {
    for (const sample of [...Object.values(Goldens.fromTwilio), ...Object.values(Goldens.toTwilio)]) {
      assert.notStrictEqual(sample, canonical(sample))
    }
  })
  it("decodes connected, start and stop to the documented fields", () => {
    assert.deepStrictEqual(decoded(TwilioMediaStream.decode(Goldens.connected)), {
      _tag: "Connected",
      protocol: "Call",
      version: "1.0.0"
    })
    assert.deepStrictEqual(decoded(TwilioMediaStream.decode(Goldens.start)), {
      _tag: "Start",
      sequenceNumber: 1,
      start: {
        accountSid: "ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        streamSid: SID,
        callSid: "CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        tracks: ["inbound"],
        mediaFormat: TwilioMediaStream.mulaw8k,
        customParameters: { FirstName: "Jane", LastName: "Doe", RemoteParty: "Bob" }
      },
      streamSid: SID
    })
    assert.deepStrictEqual(decoded(TwilioMediaStream.decode(Goldens.stop)), {
      _tag: "Stop",
      sequenceNumber: 5,
      stop: { accountSid: "ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", callSid: "CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX" },
      streamSid: SID
    })
  })
  it("decodes media with numbers where the wire has strings, and the payload left as base64 text", () => {
    assert.deepStrictEqual(decoded(TwilioMediaStream.decode(Goldens.mediaInboundTrack)), {
      _tag: "Media",
      sequenceNumber: 4,
      media: { track: "inbound", chunk: 2, timestamp: 5, payload: "no+JhoaJjpzS..." },
      streamSid: SID
    })
    const outboundTrack = decoded(TwilioMediaStream.decode(Goldens.mediaOutboundTrack))
    assert.strictEqual(outboundTrack._tag === "Media" && outboundTrack.media.track, "outbound")
  })
  it("decodes dtmf and the carrier's mark", () => {
    assert.deepStrictEqual(decoded(TwilioMediaStream.decode(Goldens.dtmf)), {
      _tag: "Dtmf",
      streamSid: SID,
      sequenceNumber: 5,
      dtmf: { track: "inbound_track", digit: "1" }
    })
    assert.deepStrictEqual(decoded(TwilioMediaStream.decode(Goldens.mark)), {
      _tag: "Mark",
      sequenceNumber: 4,
      streamSid: SID,
      mark: { name: "my label" }
    })
  })
  it("decodes the messages to Twilio to the same values the constructors build", () => {
    assert.deepStrictEqual(
      decoded(TwilioMediaStream.decodeOutbound(Goldens.outboundMedia)),
      TwilioMediaStream.outboundMedia(SID, "a3242sa...")
    )
    assert.deepStrictEqual(
      decoded(TwilioMediaStream.decodeOutbound(Goldens.outboundMark)),
      TwilioMediaStream.outboundMark(SID, "my label")
    )
    assert.deepStrictEqual(decoded(TwilioMediaStream.decodeOutbound(Goldens.clear)), TwilioMediaStream.clear(SID))
  })
})

describe("decode", () => {
  it("keeps each direction apart: clear is unknown from the carrier, start unknown to it", () => {
    assert.deepStrictEqual(decoded(TwilioMediaStream.decode(Goldens.clear)), {
      _tag: "Unknown",
      event: "clear",
      json: JSON.parse(Goldens.clear)
    })
    assert.strictEqual(decoded(TwilioMediaStream.decodeOutbound(Goldens.start))._tag, "Unknown")
    // a mark to the carrier has no sequenceNumber: from the carrier, that is a malformed mark
    const error = failure(TwilioMediaStream.decode(Goldens.outboundMark))
    assert.deepStrictEqual([error.reason, error.event], ["InvalidMessage", "mark"])
    assert.include(error.detail, "sequenceNumber")
  })
  it("decodes any other event to Unknown, holding the parsed frame", () => {
    for (const event of ["transcription", "", "MEDIA", "constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const text = JSON.stringify({ event, streamSid: SID, anything: [1, { deep: null }] })
      const message = decoded(TwilioMediaStream.decode(text))
      assert.strictEqual(message._tag, "Unknown", event)
      assert.strictEqual(message._tag === "Unknown" && message.event, event)
      assert.strictEqual(TwilioMediaStream.encode(message), text)
    }
  })
  it("ignores fields a later Twilio adds to a known event (and does not re-encode them)", () => {
    const message = decoded(
      TwilioMediaStream.decode(
        `{"event":"media","sequenceNumber":"7","media":{"track":"inbound","chunk":"3","timestamp":"40","payload":"//8=","extra":1},"streamSid":"MZ1","new":true}`
      )
    )
    assert.strictEqual(
      TwilioMediaStream.encode(message),
      `{"event":"media","sequenceNumber":"7","media":{"track":"inbound","chunk":"3","timestamp":"40","payload":"//8="},"streamSid":"MZ1"}`
    )
  })
  it("accepts a start without customParameters and re-encodes it without them", () => {
    const text =
      `{"event":"start","sequenceNumber":"1","start":{"accountSid":"AC1","streamSid":"MZ1","callSid":"CA1","tracks":["inbound","outbound"],"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"MZ1"}`
    const message = decoded(TwilioMediaStream.decode(text))
    assert.isFalse(message._tag === "Start" && "customParameters" in message.start)
    assert.strictEqual(TwilioMediaStream.encode(message), text)
  })
  it("fails with NotJson on text that is not JSON, without quoting it", () => {
    for (
      const text of ["", "{", "media", "{\"event\":\"media\",}", "secret-token-123", "\u0000", "[".repeat(100_000)]
    ) {
      const error = failure(TwilioMediaStream.decode(text))
      assert.strictEqual(error.reason, "NotJson")
      assert.notInclude(error.message, "secret")
    }
  })
  it("fails with NotAnObject on JSON that is not an object", () => {
    for (const text of ["[]", "[{\"event\":\"media\"}]", "5", "null", "true", "\"media\""]) {
      assert.strictEqual(failure(TwilioMediaStream.decode(text)).reason, "NotAnObject", text)
      assert.strictEqual(failure(TwilioMediaStream.decodeOutbound(text)).reason, "NotAnObject", text)
    }
  })
  it("fails with MissingEvent when event is absent or not a string", () => {
    for (
      const text of ["{}", "{\"event\":5}", "{\"event\":null}", "{\"event\":[\"media\"]}", "{\"Event\":\"media\"}"]
    ) {
      assert.strictEqual(failure(TwilioMediaStream.decode(text)).reason, "MissingEvent", text)
    }
  })
  const media = (fields: Record<string, unknown>) =>
    JSON.stringify({
      event: "media",
      sequenceNumber: "3",
      media: { track: "inbound", chunk: "1", timestamp: "20", payload: "//8=", ...fields },
      streamSid: SID
    })
  it("accepts numeric fields as canonical decimal strings up to 2^53 − 1", () => {
    for (const value of ["0", "1", "20", "9007199254740991"]) {
      const message = decoded(TwilioMediaStream.decode(media({ timestamp: value })))
      assert.strictEqual(message._tag === "Media" && message.media.timestamp, Number(value))
      assert.strictEqual(TwilioMediaStream.encode(message), media({ timestamp: value }))
    }
  })
  it("rejects numeric fields in any other spelling, huge ones and JSON numbers (InvalidMessage, with the path)", () => {
    const cases: ReadonlyArray<unknown> = [
      "01",
      "-1",
      "+1",
      "1.5",
      "1e3",
      " 1",
      "1 ",
      "",
      "0x10",
      "Infinity",
      "NaN",
      "9007199254740992",
      "99999999999999999999",
      "1".repeat(400),
      20,
      null,
      true
    ]
    for (const value of cases) {
      const error = failure(TwilioMediaStream.decode(media({ chunk: value })))
      assert.deepStrictEqual([error.reason, error.event], ["InvalidMessage", "media"], JSON.stringify(value))
      assert.match(error.detail, /^media\.chunk: /)
    }
    const numeric = JSON.parse(media({})) as Record<string, unknown>
    const error = failure(TwilioMediaStream.decode(JSON.stringify({ ...numeric, sequenceNumber: 3 })))
    assert.match(error.detail, /^sequenceNumber: /)
  })
  it("rejects missing and mistyped fields of known events", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`{"event":"media","sequenceNumber":"3","streamSid":"MZ1"}`, "media"],
      [media({ track: "both" }), "media.track"],
      [media({ payload: 42 }), "media.payload"],
      [JSON.stringify({ event: "media", sequenceNumber: "3", media: null, streamSid: SID }), "media"],
      [`{"event":"connected","protocol":"Call"}`, "version"],
      [`{"event":"stop","sequenceNumber":"5","stop":{"accountSid":"AC1"},"streamSid":"MZ1"}`, "stop.callSid"],
      [
        `{"event":"dtmf","streamSid":"MZ1","sequenceNumber":"5","dtmf":{"track":"inbound_track","digit":1}}`,
        "dtmf.digit"
      ],
      [`{"event":"mark","sequenceNumber":"4","streamSid":"MZ1","mark":{}}`, "mark.name"],
      [`{"event":"mark","sequenceNumber":"4","streamSid":7,"mark":{"name":"a"}}`, "streamSid"],
      [Goldens.start.replace(`"tracks": [ "inbound" ]`, `"tracks": "inbound"`), "start.tracks"],
      [Goldens.start.replace(`"sampleRate": 8000`, `"sampleRate": "8000"`), "start.mediaFormat.sampleRate"],
      [Goldens.start.replace(`"channels": 1`, `"channels": 1.5`), "start.mediaFormat.channels"]
    ]
    for (const [text, path] of cases) {
      const error = failure(TwilioMediaStream.decode(text))
      assert.strictEqual(error.reason, "InvalidMessage", text)
      assert.match(error.detail, new RegExp(`^${path.replaceAll(".", "\\.")}: `), text)
    }
  })
  it("never quotes a rejected value: custom parameters carry the per-call token", () => {
    const text = Goldens.start.replace(`"Bob"`, `{"token":"secret-token-123"}`)
    const error = failure(TwilioMediaStream.decode(text))
    assert.strictEqual(error.detail, "start.customParameters.RemoteParty: Expected string")
    assert.notInclude(error.message, "secret")
  })
  it("rejects outbound frames missing their fields (carrier side)", () => {
    for (
      const text of [`{"event":"media","streamSid":"MZ1"}`, `{"event":"mark","streamSid":"MZ1"}`, `{"event":"clear"}`]
    ) {
      assert.strictEqual(failure(TwilioMediaStream.decodeOutbound(text)).reason, "InvalidMessage", text)
    }
  })
})

describe("encode", () => {
  it("writes the constructors' messages in the order of Twilio's samples", () => {
    assert.strictEqual(
      TwilioMediaStream.encode(TwilioMediaStream.outboundMedia("MZ1", "//8=")),
      `{"event":"media","streamSid":"MZ1","media":{"payload":"//8="}}`
    )
    assert.strictEqual(
      TwilioMediaStream.encode(TwilioMediaStream.outboundMark("MZ1", "utterance-1")),
      `{"event":"mark","streamSid":"MZ1","mark":{"name":"utterance-1"}}`
    )
    assert.strictEqual(TwilioMediaStream.encode(TwilioMediaStream.clear("MZ1")), `{"event":"clear","streamSid":"MZ1"}`)
  })
  it("throws for values that break their type at run time (caller bugs), rather than send them", () => {
    const message: TwilioMediaStream.Media = {
      _tag: "Media",
      sequenceNumber: 1,
      media: { track: "inbound", chunk: Number.NaN, timestamp: 0, payload: "" },
      streamSid: "MZ1"
    }
    assert.throws(() => TwilioMediaStream.encode(message))
    assert.throws(() => TwilioMediaStream.encode({ ...message, sequenceNumber: -1 }))
    assert.throws(() => TwilioMediaStream.encode({ ...message, sequenceNumber: 1.5 }))
  })
})

// Arbitrary decoded messages: every one must survive encode → decode unchanged, and its encoding
// must be a fixed point of decode → encode (our canonical text round-trips byte for byte).
const text = fc.string({ unit: "binary" })
const uint = fc.maxSafeNat()
const track = fc.constantFrom("inbound" as const, "outbound" as const)
const knownInbound = new Set(["connected", "start", "media", "mark", "dtmf", "stop"])
const knownOutbound = new Set(["media", "mark", "clear"])
const unknown = (known: ReadonlySet<string>) =>
  fc.tuple(text.filter((event) => !known.has(event)), fc.dictionary(text, fc.jsonValue()))
    .map(([event, fields]): TwilioMediaStream.Unknown => ({
      _tag: "Unknown",
      event,
      json: JSON.parse(JSON.stringify({ ...fields, event })) as { readonly [key: string]: unknown }
    }))

const inbound: fc.Arbitrary<TwilioMediaStream.InboundMessage> = fc.oneof(
  fc.record({ _tag: fc.constant("Connected" as const), protocol: text, version: text }),
  fc.record({
    _tag: fc.constant("Start" as const),
    sequenceNumber: uint,
    start: fc.record({
      accountSid: text,
      streamSid: text,
      callSid: text,
      tracks: fc.array(track, { maxLength: 3 }),
      mediaFormat: fc.record({ encoding: text, sampleRate: fc.integer(), channels: fc.integer() }),
      customParameters: fc.dictionary(text, text, { noNullPrototype: true })
    }, { requiredKeys: ["accountSid", "streamSid", "callSid", "tracks", "mediaFormat"] }),
    streamSid: text
  }),
  fc.record({
    _tag: fc.constant("Media" as const),
    sequenceNumber: uint,
    media: fc.record({ track, chunk: uint, timestamp: uint, payload: fc.base64String() }),
    streamSid: text
  }),
  fc.record({
    _tag: fc.constant("Mark" as const),
    sequenceNumber: uint,
    streamSid: text,
    mark: fc.record({ name: text })
  }),
  fc.record({
    _tag: fc.constant("Dtmf" as const),
    streamSid: text,
    sequenceNumber: uint,
    dtmf: fc.record({ track: text, digit: text })
  }),
  fc.record({
    _tag: fc.constant("Stop" as const),
    sequenceNumber: uint,
    stop: fc.record({ accountSid: text, callSid: text }),
    streamSid: text
  }),
  unknown(knownInbound)
)

const outbound: fc.Arbitrary<TwilioMediaStream.OutboundMessage> = fc.oneof(
  fc.tuple(text, fc.base64String()).map(([sid, payload]) => TwilioMediaStream.outboundMedia(sid, payload)),
  fc.tuple(text, text).map(([sid, name]) => TwilioMediaStream.outboundMark(sid, name)),
  text.map(TwilioMediaStream.clear),
  unknown(knownOutbound)
)

describe("round trip (properties)", () => {
  it("inbound: decode(encode(m)) is m, and encode(decode(t)) is t for our text", () => {
    fc.assert(
      fc.property(inbound, (message) => {
        const encoded = TwilioMediaStream.encode(message)
        const again = decoded(TwilioMediaStream.decode(encoded))
        assert.deepStrictEqual(again, message)
        assert.strictEqual(TwilioMediaStream.encode(again), encoded)
      }),
      { numRuns: 2000 }
    )
  })
  it("outbound: decodeOutbound(encode(m)) is m, and encode(decodeOutbound(t)) is t for our text", () => {
    fc.assert(
      fc.property(outbound, (message) => {
        const encoded = TwilioMediaStream.encode(message)
        const again = decoded(TwilioMediaStream.decodeOutbound(encoded))
        assert.deepStrictEqual(again, message)
        assert.strictEqual(TwilioMediaStream.encode(again), encoded)
      }),
      { numRuns: 1000 }
    )
  })
  it("whitespace in the carrier's text does not change the message: re-encoding gives the compact form", () => {
    fc.assert(
      fc.property(inbound, fc.integer({ min: 0, max: 4 }), (message, space) => {
        const compact = TwilioMediaStream.encode(message)
        const indented = JSON.stringify(JSON.parse(compact), null, space)
        assert.strictEqual(TwilioMediaStream.encode(decoded(TwilioMediaStream.decode(indented))), compact)
      }),
      { numRuns: 500 }
    )
  })
  it("never throws on arbitrary text or JSON", () => {
    const frames = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify({ event: "media", media: value, sequenceNumber: "1" })),
      fc.record({ event: fc.constantFrom(...knownInbound, ...knownOutbound), rest: fc.jsonValue() })
        .map((value) => JSON.stringify(value))
    )
    fc.assert(
      fc.property(frames, (frame) => {
        const inboundResult = TwilioMediaStream.decode(frame)
        const outboundResult = TwilioMediaStream.decodeOutbound(frame)
        assert.isTrue(Result.isResult(inboundResult) && Result.isResult(outboundResult))
      }),
      { numRuns: 2000 }
    )
  })
})

// The per-frame messages take a fast path in decode, decodeOutbound and encode (a hand check of
// the Schemas' rules); on any input, valid or not, the result must be the Schema path's:
// the same value with its fields in the same order, or the same error, or the same text.
describe("fast paths agree with the Schema path (properties)", () => {
  type Fields = { [key: string]: unknown }
  const isFields = (value: unknown): value is Fields =>
    typeof value === "object" && value !== null && !Array.isArray(value)

  const sameDecoding = <A>(
    fast: Result.Result<A, TwilioMediaStream.MediaStreamDecodeError>,
    reference: Result.Result<A, TwilioMediaStream.MediaStreamDecodeError>
  ): boolean => {
    if (Result.isSuccess(reference)) {
      if (Result.isFailure(fast)) return assert.fail(`fast path failed: ${fast.failure.message}`)
      assert.deepStrictEqual(fast.success, reference.success)
      // key order too: the values are the same JSON text
      assert.strictEqual(JSON.stringify(fast.success), JSON.stringify(reference.success))
      return true
    }
    if (Result.isSuccess(fast)) return assert.fail(`fast path decoded: ${JSON.stringify(fast.success)}`)
    const fields = (error: TwilioMediaStream.MediaStreamDecodeError) => ({
      tag: error._tag,
      reason: error.reason,
      event: error.event,
      detail: error.detail,
      message: error.message
    })
    assert.deepStrictEqual(fields(fast.failure), fields(reference.failure))
    return false
  }

  const sameEncoding = (message: TwilioMediaStream.Message): boolean => {
    const outcome = (run: (message: TwilioMediaStream.Message) => string) =>
      Result.try({ try: () => run(message), catch: (error) => String(error) })
    const fast = outcome(TwilioMediaStream.encode)
    const reference = outcome(TwilioMediaStream.encodeViaSchema)
    assert.deepStrictEqual(fast, reference)
    return Result.isSuccess(reference)
  }

  // numeric text the Schema accepts and a catalogue of what it refuses
  const numericText = fc.oneof(
    uint.map(String),
    fc.stringMatching(/^[0-9]{1,18}$/),
    fc.constantFrom(
      "0",
      "00",
      "01",
      "-0",
      "-1",
      "+1",
      "1.5",
      "1.0",
      "1e3",
      "1E3",
      " 1",
      "1 ",
      "",
      "0x10",
      "0b1",
      "Infinity",
      "NaN",
      "١",
      "9007199254740991",
      "9007199254740992",
      "9999999999999999",
      "10000000000000000",
      "99999999999999999999",
      "1".repeat(400)
    )
  )
  const wireValue = fc.oneof(
    { arbitrary: numericText, weight: 3 },
    {
      arbitrary: fc.constantFrom("inbound", "outbound", "both", "Inbound", "inbound_track", "media", "mark"),
      weight: 1
    },
    { arbitrary: fc.constantFrom(...knownInbound, ...knownOutbound), weight: 1 },
    { arbitrary: text, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 2 },
    { arbitrary: fc.constantFrom(0, 1, 3, -1, 1.5, 1e3, 2 ** 53, null, true, false, [], {}), weight: 1 }
  )
  const key = fc.oneof(
    text,
    fc.constantFrom("__proto__", "constructor", "toString", "event", "_tag", "media", "mark", "name", "payload")
  )
  type Mutation =
    | { readonly kind: "delete" }
    | { readonly kind: "set"; readonly value: unknown }
    | { readonly kind: "add"; readonly key: string; readonly value: unknown }
  const mutations = (value: fc.Arbitrary<unknown>) =>
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.oneof(
          fc.constant<Mutation>({ kind: "delete" }),
          value.map((value): Mutation => ({ kind: "set", value })),
          fc.tuple(key, value).map(([key, value]): Mutation => ({ kind: "add", key, value }))
        )
      ),
      { minLength: 1, maxLength: 3 }
    )
  // own properties even for "__proto__", as JSON.parse makes them
  const define = (target: Fields, key: string, value: unknown) =>
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

  /** Applies each mutation to a field (at any depth) picked by its number, skipping `skip` keys at the top. */
  const mutate = (root: Fields, changes: ReadonlyArray<readonly [number, Mutation]>, skip: ReadonlySet<string>) => {
    for (const [pick, change] of changes) {
      const slots: Array<readonly [Fields, string]> = []
      const walk = (node: Fields, top: boolean) => {
        for (const name of Object.keys(node)) {
          if (top && skip.has(name)) continue
          slots.push([node, name])
          const child = node[name]
          if (isFields(child)) walk(child, false)
        }
      }
      walk(root, true)
      const [node, name] = slots[pick % Math.max(1, slots.length)] ?? [root, ""]
      if (change.kind === "delete") delete node[name]
      else if (change.kind === "set") define(node, name, change.value)
      else define(node, change.key, change.value)
    }
    return root
  }

  const perFrame = new Set(["Media", "Mark", "OutboundMedia", "OutboundMark", "Clear"])
  const frames = fc.oneof(inbound, outbound).filter((message) => perFrame.has(message._tag))
  const wireFrames = fc.oneof(
    { arbitrary: frames.map(TwilioMediaStream.encode), weight: 1 },
    {
      arbitrary: fc.tuple(frames, mutations(wireValue)).map(([message, changes]) =>
        JSON.stringify(mutate(JSON.parse(TwilioMediaStream.encode(message)) as Fields, changes, new Set()))
      ),
      weight: 6
    }
  )

  it("decode and decodeOutbound: the same value or the same error as through the Schema", () => {
    let decodedFast = 0
    fc.assert(
      fc.property(wireFrames, (frame) => {
        const inbound = sameDecoding(TwilioMediaStream.decode(frame), TwilioMediaStream.decodeViaSchema(frame))
        const outbound = sameDecoding(
          TwilioMediaStream.decodeOutbound(frame),
          TwilioMediaStream.decodeOutboundViaSchema(frame)
        )
        if (inbound || outbound) decodedFast++
      }),
      { numRuns: 5000 }
    )
    // both accepting and refusing were exercised
    assert.isAbove(decodedFast, 1000)
    assert.isBelow(decodedFast, 4500)
  })

  it("decode: the canonical and non-canonical numbers of the module's header", () => {
    const media = (value: unknown) =>
      JSON.stringify({
        event: "media",
        sequenceNumber: value,
        media: { track: "inbound", chunk: value, timestamp: value, payload: "//8=" },
        streamSid: SID
      })
    const mark = (value: unknown) => JSON.stringify({ event: "mark", sequenceNumber: value, streamSid: SID, mark: {} })
    for (
      const value of [
        "0",
        "7",
        "9007199254740991",
        "01",
        "-1",
        "1.5",
        "1e3",
        "9007199254740992",
        "1".repeat(20),
        7,
        null
      ]
    ) {
      for (const frame of [media(value), mark(value)]) {
        sameDecoding(TwilioMediaStream.decode(frame), TwilioMediaStream.decodeViaSchema(frame))
        sameDecoding(TwilioMediaStream.decodeOutbound(frame), TwilioMediaStream.decodeOutboundViaSchema(frame))
      }
    }
  })

  const typeValue = fc.oneof(
    { arbitrary: fc.constantFrom(0, -0, 1, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 53, 2 ** 53 - 1, 1e21), weight: 2 },
    { arbitrary: fc.oneof(fc.integer(), fc.double(), uint), weight: 2 },
    { arbitrary: fc.constantFrom("inbound", "outbound", "both", "3", "", undefined, null), weight: 2 },
    { arbitrary: text, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 }
  )

  it("encode: the same text, or the same error thrown, as through the Schema", () => {
    let encoded = 0
    fc.assert(
      fc.property(frames, fc.boolean(), mutations(typeValue), (message, broken, changes) => {
        const value = broken
          ? mutate(structuredClone(message) as unknown as Fields, changes, new Set(["_tag"]))
          : message
        if (sameEncoding(value as unknown as TwilioMediaStream.Message)) encoded++
      }),
      { numRuns: 5000 }
    )
    assert.isAbove(encoded, 2500)
    assert.isBelow(encoded, 4900)
  })

  it("encode: odd objects that JSON cannot make (arrays with fields, null prototypes, getters)", () => {
    const fields = { track: "inbound", chunk: 1, timestamp: 2, payload: "//8=", name: "n" }
    const nested: ReadonlyArray<unknown> = [
      Object.assign([], fields),
      Object.assign(Object.create(null) as object, fields),
      Object.create(fields) as object,
      {
        get track() {
          return "outbound"
        },
        get name() {
          return "g"
        },
        chunk: 1,
        timestamp: 2,
        payload: ""
      }
    ]
    for (const value of nested) {
      for (
        const message of [
          { _tag: "Media", sequenceNumber: 1, media: value, streamSid: SID },
          { _tag: "Mark", sequenceNumber: 1, streamSid: SID, mark: value },
          { _tag: "OutboundMedia", streamSid: SID, media: value },
          { _tag: "OutboundMark", streamSid: SID, mark: value }
        ]
      ) {
        sameEncoding(message as TwilioMediaStream.Message)
      }
    }
  })
})
