import { assert, describe, it } from "@effect/vitest"
import * as Goldens from "../test/fixtures/twilio-media-streams.goldens.ts"
import * as MuLaw from "./MuLaw.ts"
import * as TwilioMediaCodec from "./TwilioMediaCodec.ts"
import * as TwilioMediaStream from "./TwilioMediaStream.ts"

const SID = "MZXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
const canonical = (text: string) => JSON.stringify(JSON.parse(text))

describe("TwilioMediaCodec", () => {
  it("decodes Twilio's samples to the session's events", () => {
    const { decode } = TwilioMediaCodec
    assert.deepStrictEqual(decode(Goldens.connected), { _tag: "Connected" })
    assert.deepStrictEqual(decode(Goldens.start), { _tag: "Start", streamId: SID, token: undefined })
    assert.deepStrictEqual(decode(Goldens.mediaInboundTrack), {
      _tag: "Media",
      timestampMs: 5,
      audio: new Uint8Array(Buffer.from("no+JhoaJjpzS...", "base64"))
    })
    assert.deepStrictEqual(decode(Goldens.mediaOutboundTrack), { _tag: "Ignored" }, "the other track")
    assert.deepStrictEqual(decode(Goldens.mark), { _tag: "Mark", name: "my label" })
    assert.deepStrictEqual(decode(Goldens.dtmf), { _tag: "Dtmf", digit: "1" })
    assert.deepStrictEqual(decode(Goldens.stop), { _tag: "Stop" })
    assert.deepStrictEqual(decode(`{"event":"later"}`), { _tag: "Ignored" }, "an unknown event")
    assert.deepStrictEqual(decode(`{"event":"media"}`), { _tag: "Ignored" }, "a malformed one")
    assert.deepStrictEqual(decode("not json"), { _tag: "Ignored" })
  })

  it("reads the token from the start's custom parameters (a string only)", () => {
    const start = JSON.parse(Goldens.start)
    const withToken = (token: unknown) =>
      JSON.stringify({ ...start, start: { ...start.start, customParameters: { token } } })
    assert.deepStrictEqual(TwilioMediaCodec.decode(withToken("v1.abc")), {
      _tag: "Start",
      streamId: SID,
      token: "v1.abc"
    })
    assert.deepStrictEqual(TwilioMediaCodec.decode(withToken(7)), { _tag: "Ignored" }, "parameters are strings")
  })

  it("encodes the session's events as Twilio's messages, byte for byte", () => {
    const audio = MuLaw.encode(Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin(i / 3))))
    assert.strictEqual(
      TwilioMediaCodec.encode(SID, { _tag: "Media", audio }),
      TwilioMediaStream.encode(TwilioMediaStream.outboundMedia(SID, Buffer.from(audio).toString("base64")))
    )
    assert.strictEqual(
      TwilioMediaCodec.encode(SID, { _tag: "Media", audio: new Uint8Array(Buffer.from("a3242sY=", "base64")) }),
      canonical(Goldens.outboundMedia).replace("a3242sa...", "a3242sY=")
    )
    assert.strictEqual(
      TwilioMediaCodec.encode(SID, { _tag: "Mark", name: "my label" }),
      canonical(Goldens.outboundMark)
    )
    assert.strictEqual(TwilioMediaCodec.encode(SID, { _tag: "Clear" }), canonical(Goldens.clear))
  })

  it("encodes a view of a larger buffer as its own bytes only", () => {
    const whole = new Uint8Array([1, 2, 3, 4, 5, 6])
    const view = whole.subarray(2, 4)
    assert.strictEqual(
      TwilioMediaCodec.encode(SID, { _tag: "Media", audio: view }),
      TwilioMediaStream.encode(TwilioMediaStream.outboundMedia(SID, Buffer.from([3, 4]).toString("base64")))
    )
  })
})
