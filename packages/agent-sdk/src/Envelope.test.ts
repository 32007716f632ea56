import { describe, expect, it } from "vitest"
import { parseServerFrame } from "./Envelope.ts"

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
