import { assert, describe, it } from "@effect/vitest"
import type { InboundEvent, OutboundEvent } from "@voice-agent/media/MediaCodec"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as RtpMediaCodec from "./RtpMediaCodec.ts"
import * as SipMedia from "./SipMedia.ts"

const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i)

describe("RtpMediaCodec", () => {
  it("carries every event of the trunk's side, and all 256 byte values of the audio, to the session", () => {
    const events: ReadonlyArray<InboundEvent> = [
      { _tag: "Start", streamId: "a84b4c76e66710@pc33", token: "v1.tok.en" },
      { _tag: "Media", timestampMs: 1234.5, audio: everyByte },
      { _tag: "Mark", name: "chunk-7" },
      { _tag: "Dtmf", digit: "#" },
      { _tag: "Stop" }
    ]
    for (const event of events) {
      const decoded = RtpMediaCodec.decode(RtpMediaCodec.encodeInbound(event))
      assert.deepStrictEqual(
        decoded._tag === "Media" ? { ...decoded, audio: new Uint8Array(decoded.audio) } : decoded,
        event
      )
    }
  })

  it("carries the session's events, audio byte for byte", () => {
    const events: ReadonlyArray<OutboundEvent> = [
      { _tag: "Media", audio: everyByte },
      { _tag: "Mark", name: "m1" },
      { _tag: "Clear" }
    ]
    for (const event of events) {
      const decoded = RtpMediaCodec.decodeOutbound(RtpMediaCodec.encode("ignored", event))
      assert.deepStrictEqual(
        decoded?._tag === "Media" ? { ...decoded, audio: new Uint8Array(decoded.audio) } : decoded,
        event
      )
    }
  })

  it("reads anything else as Ignored: the session refuses a stream that starts with it", () => {
    for (const frame of ["", "X", "A", "A-5\nabc", "Anope\nabc", "Sno-newline", "D12", "Estop", "S\n"]) {
      const decoded = RtpMediaCodec.decode(frame)
      assert.isTrue(
        decoded._tag === "Ignored" || (decoded._tag === "Start" && decoded.token === undefined),
        `${JSON.stringify(frame)}: ${decoded._tag}`
      )
    }
    assert.isUndefined(RtpMediaCodec.decodeOutbound("Cx"))
    assert.isUndefined(RtpMediaCodec.decodeOutbound("?"))
  })
})

describe("SipMedia.framesOf", () => {
  it("a gap becomes 20 ms frames of μ-law silence in its place, a short tail its own length", () => {
    const frames = SipMedia.framesOf({ _tag: "Gap", atMs: 100, durationMs: 50 }).map(RtpMediaCodec.decode)
    assert.deepStrictEqual(
      frames.map((f) =>
        f._tag === "Media" && [f.timestampMs, f.audio.length, f.audio.every((b) => b === MuLaw.SILENCE)]
      ),
      [[100, 160, true], [120, 160, true], [140, 80, true]]
    )
  })

  it("audio at its place on the timeline, a key press, a mark's echo", () => {
    const audio = new Uint8Array(160).fill(7)
    assert.deepStrictEqual(
      [
        ...SipMedia.framesOf({ _tag: "Audio", atMs: 980, durationMs: 20, audio }),
        ...SipMedia.framesOf({ _tag: "Dtmf", atMs: 1000, digit: "5" }),
        ...SipMedia.framesOf({ _tag: "Played", name: "c3" })
      ].map(RtpMediaCodec.decode).map((e) => e._tag === "Media" ? { ...e, audio: Array.from(e.audio) } : e),
      [
        { _tag: "Media", timestampMs: 980, audio: Array.from(audio) },
        { _tag: "Dtmf", digit: "5" },
        { _tag: "Mark", name: "c3" }
      ]
    )
  })
})
