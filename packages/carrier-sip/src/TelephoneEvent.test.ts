import { assert, describe, it } from "@effect/vitest"
import * as TelephoneEvent from "./TelephoneEvent.ts"

describe("TelephoneEvent", () => {
  it("reads and writes the RFC 4733 §2.3 payload", () => {
    const bytes = TelephoneEvent.encode({ event: 11, end: true, volume: 10, duration: 800 })
    assert.deepStrictEqual(Array.from(bytes), [11, 0x8a, 0x03, 0x20])
    assert.deepStrictEqual(TelephoneEvent.decode(bytes), { event: 11, end: true, volume: 10, duration: 800 })
    assert.strictEqual(TelephoneEvent.decode(Uint8Array.of(1, 2, 3)), undefined)
  })

  it("maps events to keys and back", () => {
    assert.strictEqual([...Array(16).keys()].map((e) => TelephoneEvent.digitOf(e)).join(""), "0123456789*#ABCD")
    assert.strictEqual(TelephoneEvent.eventOf("#"), 11)
    assert.strictEqual(TelephoneEvent.eventOf("d"), 15)
    assert.strictEqual(TelephoneEvent.eventOf("x"), undefined)
    assert.strictEqual(TelephoneEvent.digitOf(16), undefined)
  })

  it("sends a press as 20 ms updates with the marker first and the end three times", () => {
    const packets = TelephoneEvent.press("5", 100)
    assert.deepStrictEqual(
      packets.map((p) => [p.marker, TelephoneEvent.decode(p.payload)!.end, TelephoneEvent.decode(p.payload)!.duration]),
      [[true, false, 160], [false, false, 320], [false, false, 480], [false, false, 640], [false, true, 800], [
        false,
        true,
        800
      ], [false, true, 800]]
    )
  })

  it("reports each press once, whatever arrives first, repeated or out of order", () => {
    const five = TelephoneEvent.press("5")
    const hash = TelephoneEvent.press("#")
    // The first press's start is lost; the second's packets arrive shuffled among its repeats.
    const arrivals: Array<[number, Uint8Array]> = [
      ...five.slice(2).map((p): [number, Uint8Array] => [1000, p.payload]),
      [2600, hash[4]!.payload],
      [2600, hash[0]!.payload],
      [1000, five[6]!.payload],
      ...hash.map((p): [number, Uint8Array] => [2600, p.payload]),
      ...five.map((p): [number, Uint8Array] => [4200, p.payload])
    ]
    let state = TelephoneEvent.receiver()
    const digits: Array<string> = []
    for (const [timestamp, payload] of arrivals) {
      const received = TelephoneEvent.receive(state, timestamp, payload)
      state = received.state
      if (received.digit !== undefined) digits.push(received.digit)
    }
    assert.deepStrictEqual(digits, ["5", "#", "5"])
  })
})
