import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as SipStream from "./SipStream.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const message = (n: number, body: string) =>
  `OPTIONS sip:a@b SIP/2.0\r\nCall-ID: ${n}\r\nl: ${encoder.encode(body).length}\r\n\r\n${body}`

describe("SipStream", () => {
  it("cuts messages by Content-Length however the stream splits them", () => {
    const texts = [message(1, ""), message(2, "héllo"), message(3, "v=0\r\n\r\n")]
    const bytes = encoder.encode(`\r\n\r\n${texts.join("\r\n\r\n")}`)
    fc.assert(
      fc.property(fc.array(fc.nat(bytes.length), { maxLength: 10 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), bytes.length]
        const stream = SipStream.make()
        const out: Array<string> = []
        for (let i = 1; i < points.length; i++) {
          const pushed = SipStream.push(stream, bytes.subarray(points[i - 1], points[i]))
          assert.strictEqual(pushed._tag, "Messages")
          out.push(...pushed.messages.map((m) => decoder.decode(m)))
        }
        assert.deepStrictEqual(out, texts)
      })
    )
  })

  it("breaks on a message with no Content-Length, keeping the ones before it", () => {
    const stream = SipStream.make()
    const pushed = SipStream.push(stream, encoder.encode(`${message(1, "x")}OPTIONS sip:a@b SIP/2.0\r\n\r\n`))
    assert.strictEqual(pushed._tag, "Broken")
    assert.strictEqual(pushed.messages.length, 1)
    assert.strictEqual(pushed._tag === "Broken" && pushed.detail, "missing Content-Length on a stream")
    assert.strictEqual(SipStream.push(stream, encoder.encode(message(2, "")))._tag, "Broken")
  })

  it("breaks on headers that never end", () => {
    const stream = SipStream.make()
    const pushed = SipStream.push(stream, new Uint8Array(70_000).fill(0x41))
    assert.strictEqual(pushed._tag === "Broken" && pushed.detail, "headers too large")
  })
})
