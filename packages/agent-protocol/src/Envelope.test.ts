import { assert, describe, expect, it } from "@effect/vitest"
import * as Envelope from "./Envelope.ts"
import { parseServerFrame } from "./Envelope.ts"

const json = (frames: ReadonlyArray<string>) => frames.map((frame) => JSON.parse(frame) as unknown)

describe("the envelope's sequence bookkeeping", () => {
  it("numbers, prunes what is acknowledged, and resends past the client's last sequence", () => {
    let outbox = Envelope.emptyOutbox
    for (const n of [1, 2, 3, 4]) outbox = Envelope.enqueue(outbox, { n }).outbox
    outbox = Envelope.acknowledge(outbox, 1)
    assert.deepStrictEqual(outbox.unacked.map((entry) => entry.sequence), [2, 3, 4])
    const resent = Envelope.resend(outbox, 2)
    assert.deepStrictEqual(json(resent.frames), [
      { message_type: "message", sequence: 3, payload: { n: 3 } },
      { message_type: "message", sequence: 4, payload: { n: 4 } }
    ])
    assert.strictEqual(Envelope.enqueue(resent.outbox, { n: 5 }).outbox.nextSequence, 6)
  })

  it("renumbers what is unacknowledged from a given sequence, in order", () => {
    let outbox = Envelope.emptyOutbox
    for (const n of [1, 2, 3]) outbox = Envelope.enqueue(outbox, { n }).outbox
    const renumbered = Envelope.renumber(Envelope.acknowledge(outbox, 1), 8)
    assert.deepStrictEqual(renumbered, {
      nextSequence: 10,
      unacked: [{ sequence: 8, payload: { n: 2 } }, { sequence: 9, payload: { n: 3 } }]
    })
    assert.deepStrictEqual(Envelope.renumber(Envelope.emptyOutbox, 5), { nextSequence: 5, unacked: [] })
  })

  it("drops a duplicate (at or below the last sequence seen) and keeps the last sequence", () => {
    assert.deepStrictEqual(Envelope.receive(3, 4), { fresh: true, lastSeen: 4 })
    assert.deepStrictEqual(Envelope.receive(4, 4), { fresh: false, lastSeen: 4 })
    assert.deepStrictEqual(Envelope.receive(4, 2), { fresh: false, lastSeen: 4 })
  })
})

describe("parseServerFrame", () => {
  it("reads each server frame", () => {
    expect(parseServerFrame("{\"message_type\":\"open-ack\",\"is_reopen\":false,\"last_seen_sequence\":0}")).toEqual({
      message_type: "open-ack",
      is_reopen: false,
      last_seen_sequence: 0
    })
    expect(parseServerFrame("{\"message_type\":\"message\",\"sequence\":3,\"payload\":{\"event_type\":\"x\"}}"))
      .toEqual({ message_type: "message", sequence: 3, payload: { event_type: "x" } })
    expect(parseServerFrame("{\"message_type\":\"close\",\"reason\":\"weird\"}")).toEqual({
      message_type: "close",
      reason: "unknown",
      description: ""
    })
    expect(parseServerFrame("{\"message_type\":\"ping\",\"ping_timestamp\":5}")).toEqual({
      message_type: "ping",
      ping_timestamp: 5
    })
  })

  it("answers a sentence for anything else", () => {
    for (
      const text of [
        "nope",
        "[]",
        "{\"message_type\":\"open\"}",
        "{\"message_type\":\"message\",\"sequence\":1,\"payload\":[1]}",
        "{\"message_type\":\"message\",\"sequence\":0,\"payload\":{}}",
        "{\"message_type\":\"ack\",\"last_seen_sequence\":-1}"
      ]
    ) expect(typeof parseServerFrame(text)).toBe("string")
  })
})
