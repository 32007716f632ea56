/**
 * The inbound example end to end: a real daemon with the simulated carrier; once the agent
 * listens on the organization's number, an operator places a simulated call to it through the
 * admin API. The caller's number ends 0190, so the caller answers every question and never hangs
 * up: the call ends because the agent hangs up. A text field is answered "Alex Morgan", a
 * multiple choice its first choice.
 */
import { silentLogger } from "@voice-agent/agent-sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CallSummary } from "./inbound-listener.ts"
import { takeReservations } from "./inbound-listener.ts"
import * as LocalDaemon from "./testing/LocalDaemon.ts"

let daemon: LocalDaemon.LocalDaemon

beforeAll(async () => {
  daemon = await LocalDaemon.start()
}, 60_000)

afterAll(async () => {
  await daemon?.stop()
})

describe("inbound-listener example", () => {
  it("answers a call to the number, takes the reservation, hangs up, and stops when asked", async () => {
    const { apiKey, id, number } = await daemon.organization("inbound")
    const caller = "+13035550190"
    const stop = new AbortController()
    const ended = Promise.withResolvers<CallSummary>()
    const listening = Promise.withResolvers<void>()
    const listener = takeReservations({
      baseUrl: daemon.baseUrl,
      apiKey,
      number,
      signal: stop.signal,
      onListening: listening.resolve,
      onCallEnd: ended.resolve,
      logger: silentLogger
    })
    // A listener that fails to start rejects: the test fails with its reason instead of waiting.
    listener.catch(listening.reject)
    await listening.promise

    const { call_id } = await daemon.admin(`organizations/${id}/inbound-calls`, {
      from_number: caller,
      to_number: number,
      termination_reason: "bot-hangup"
    }) as { call_id: string }
    const call = await ended.promise
    expect(call, daemon.output()).toEqual({
      callId: call_id,
      caller,
      terminationReason: "bot-hangup",
      fields: { name: "Alex Morgan", seating: "indoor" }
    })

    stop.abort()
    await listener
    // The daemon lists it as an inbound call, with the same end and fields.
    expect(await daemon.endedConversation(apiKey, call_id), daemon.output()).toMatchObject({
      direction: "inbound",
      from_number: caller,
      to_number: number,
      termination_reason: "bot-hangup"
    })
    expect(await daemon.api(apiKey, "GET", `v1/conversations/${call_id}/fields`)).toEqual({
      fields: { name: "Alex Morgan", seating: "indoor" }
    })
  }, 90_000)
})
