/**
 * The outbound example end to end: a real daemon with the simulated carrier, where the person
 * at a number ending 0190 answers every question and never hangs up (so the call ends because
 * the agent hangs up), answering a text field "Alex Morgan" and an integer one "forty two".
 */
import { silentLogger } from "@voice-agent/agent-sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { confirmReservation } from "./outbound-call.ts"
import * as LocalDaemon from "./testing/LocalDaemon.ts"

let daemon: LocalDaemon.LocalDaemon

beforeAll(async () => {
  daemon = await LocalDaemon.start()
}, 60_000)

afterAll(async () => {
  await daemon?.stop()
})

describe("outbound-call example", () => {
  it("calls, collects the name and the number of guests, and hangs up", async () => {
    const { apiKey, number } = await daemon.organization("outbound")
    const outcome = await confirmReservation({
      baseUrl: daemon.baseUrl,
      apiKey,
      from: number,
      to: "+12025550190",
      logger: silentLogger
    })

    expect(outcome, daemon.output()).toMatchObject({
      status: "ended",
      terminationReason: "bot-hangup",
      dnc: false,
      fields: { name: "Alex Morgan", guests: 42 }
    })
    // The daemon recorded the same call, its end, its fields and what was said.
    expect(await daemon.endedConversation(apiKey, outcome.callId)).toMatchObject({
      direction: "outbound",
      termination_reason: "bot-hangup"
    })
    expect(await daemon.api(apiKey, "GET", `v1/conversations/${outcome.callId}/fields`)).toEqual({
      fields: { name: "Alex Morgan", guests: 42 }
    })
    const transcript = await daemon.api(apiKey, "GET", `v1/conversations/${outcome.callId}/transcript`) as Array<
      { speaker: string; text: string }
    >
    expect(transcript.map((turn) => turn.text)).toContain("Alex Morgan")
  }, 90_000)
})
