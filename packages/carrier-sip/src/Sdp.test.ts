import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Sdp from "./Sdp.ts"

const local = { address: "203.0.113.10", port: 10000, sessionId: "42", version: 1 }
const sdp = (...lines: Array<string>) => `${lines.join("\r\n")}\r\n`
const parse = (text: string) => Result.getOrThrow(Sdp.parse(text))

describe("Sdp", () => {
  it("offers PCMU, PCMA and telephone-event 101 at 20 ms, and reads its own offer back", () => {
    const text = Sdp.offer(local)
    assert.strictEqual(
      text,
      sdp(
        "v=0",
        "o=voice-agent 42 1 IN IP4 203.0.113.10",
        "s=voice-agent",
        "c=IN IP4 203.0.113.10",
        "t=0 0",
        "m=audio 10000 RTP/AVP 0 8 101",
        "a=rtpmap:0 PCMU/8000",
        "a=rtpmap:8 PCMA/8000",
        "a=rtpmap:101 telephone-event/8000",
        "a=fmtp:101 0-16",
        "a=ptime:20",
        "a=sendrecv"
      )
    )
    const negotiated = Result.getOrThrow(Sdp.negotiate(parse(text)))
    assert.deepStrictEqual(
      { ...negotiated },
      {
        index: 0,
        codec: "PCMU",
        payloadType: 0,
        telephoneEvent: 101,
        address: "203.0.113.10",
        port: 10000,
        direction: "sendrecv",
        held: false
      }
    )
  })

  it("answers a trunk's offer with its first codec we speak and its own telephone-event type", () => {
    const offer = parse(sdp(
      "v=0",
      "o=- 1 1 IN IP4 198.51.100.2",
      "s=-",
      "c=IN IP4 198.51.100.2",
      "t=0 0",
      "m=audio 30000 RTP/AVP 18 8 0 96",
      "a=rtpmap:18 G729/8000",
      "a=rtpmap:96 telephone-event/8000",
      "a=fmtp:96 0-15",
      "m=video 30002 RTP/AVP 31"
    ))
    const { negotiated, sdp: answer } = Result.getOrThrow(Sdp.answer(offer, local))
    assert.strictEqual(negotiated.codec, "PCMA")
    assert.strictEqual(negotiated.payloadType, 8)
    assert.strictEqual(negotiated.telephoneEvent, 96)
    assert.strictEqual(negotiated.address, "198.51.100.2")
    assert.strictEqual(negotiated.port, 30000)
    const back = parse(answer)
    assert.deepStrictEqual(back.media.map((m) => [m.type, m.port, m.formats.join(" ")]), [["audio", 10000, "8 96"], [
      "video",
      0,
      "31"
    ]])
    assert.strictEqual(back.media[0]!.rtpmap.get(96)?.encoding, "telephone-event")
  })

  it("reads dynamic G.711 types, media-level addresses and hold", () => {
    const held = parse(sdp(
      "v=0",
      "o=- 1 2 IN IP4 198.51.100.2",
      "s=-",
      "c=IN IP4 198.51.100.2",
      "t=0 0",
      "a=sendonly",
      "m=audio 30000 RTP/AVP 97",
      "c=IN IP4 198.51.100.9",
      "a=rtpmap:97 pcmu/8000",
      "a=ptime:30"
    ))
    const negotiated = Result.getOrThrow(Sdp.negotiate(held))
    assert.strictEqual(negotiated.codec, "PCMU")
    assert.strictEqual(negotiated.payloadType, 97)
    assert.strictEqual(negotiated.address, "198.51.100.9")
    assert.isTrue(negotiated.held)
    assert.strictEqual(negotiated.telephoneEvent, undefined)
    assert.strictEqual(held.media[0]!.ptime, 30)
    const answer = Result.getOrThrow(Sdp.answer(held, local)).sdp
    assert.include(answer, "a=recvonly")
    const zero = parse(
      sdp("v=0", "o=- 1 3 IN IP4 198.51.100.2", "s=-", "c=IN IP4 0.0.0.0", "t=0 0", "m=audio 30000 RTP/AVP 0")
    )
    assert.isTrue(Result.getOrThrow(Sdp.negotiate(zero)).held)
  })

  it("says why there is no common codec", () => {
    const g722 = parse(
      sdp(
        "v=0",
        "o=- 1 1 IN IP4 192.0.2.1",
        "s=-",
        "c=IN IP4 192.0.2.1",
        "t=0 0",
        "m=audio 4000 RTP/AVP 9 18",
        "a=rtpmap:18 G729/8000"
      )
    )
    assert.strictEqual(Result.getOrThrow(Result.flip(Sdp.negotiate(g722))), "no common codec (offered: 9, 18 G729)")
    const srtp = parse(
      sdp("v=0", "o=- 1 1 IN IP4 192.0.2.1", "s=-", "c=IN IP4 192.0.2.1", "t=0 0", "m=audio 4000 RTP/SAVP 0")
    )
    assert.strictEqual(Result.getOrThrow(Result.flip(Sdp.negotiate(srtp))), "no common codec (offered: RTP/SAVP)")
    const video = parse(
      sdp("v=0", "o=- 1 1 IN IP4 192.0.2.1", "s=-", "c=IN IP4 192.0.2.1", "t=0 0", "m=video 4000 RTP/AVP 31")
    )
    assert.strictEqual(Result.getOrThrow(Result.flip(Sdp.negotiate(video))), "no audio stream offered")
  })

  it("refuses descriptions it cannot read", () => {
    assert.isTrue(Result.isFailure(Sdp.parse("hello")))
    assert.isTrue(
      Result.isFailure(Sdp.parse(sdp("v=0", "o=- 1 1 IN IP4 192.0.2.1", "s=-", "t=0 0", "m=audio 4000 RTP/AVP 0")))
    )
    assert.isTrue(Result.isFailure(Sdp.parse(sdp("v=0", "o=- 1 1 IN IP4 192.0.2.1", "m=audio 99999 RTP/AVP 0"))))
  })
})
