/**
 * The campaign example end to end: a real daemon with the simulated carrier. A campaign open all
 * week is created through the API; once the worker serves it, one contact is uploaded, whose
 * `data` the call gets as variables. The contact's number ends 0190: the person answers every
 * question (a multiple choice with its first choice) and never hangs up, so the call ends
 * because the agent hangs up.
 */
import { silentLogger } from "@voice-agent/agent-sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ContactCall } from "./campaign-worker.ts"
import { remindPatients } from "./campaign-worker.ts"
import * as LocalDaemon from "./testing/LocalDaemon.ts"

let daemon: LocalDaemon.LocalDaemon

beforeAll(async () => {
  daemon = await LocalDaemon.start()
}, 60_000)

afterAll(async () => {
  await daemon?.stop()
})

describe("campaign-worker example", () => {
  it("serves the campaign's call to a contact, with the contact's data as variables", async () => {
    const { apiKey, number } = await daemon.organization("campaign")
    const { campaign_code } = await daemon.api(apiKey, "POST", "v2/campaigns", {
      name: "Reminders",
      origin_phone_numbers: [number],
      start_date: new Date().toISOString().slice(0, 10),
      calling_windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
      timezone: "UTC"
    }) as { campaign_code: string }

    const stop = new AbortController()
    const ended = Promise.withResolvers<ContactCall>()
    const listening = Promise.withResolvers<void>()
    const worker = remindPatients({
      baseUrl: daemon.baseUrl,
      apiKey,
      campaignCode: campaign_code,
      signal: stop.signal,
      onListening: listening.resolve,
      onCallEnd: ended.resolve,
      logger: silentLogger
    })
    worker.catch(listening.reject)
    await listening.promise

    // Contacts uploaded from now on are offered to the worker as the dialer calls them.
    const contact = { phone_number: "+12025550190", data: { first_name: "Ada", appointment: "Thursday at 10 am" } }
    await daemon.api(apiKey, "POST", `v2/campaigns/${campaign_code}/contacts?accepted_terms_of_service=true`, {
      contacts: [contact]
    })
    const call = await ended.promise
    expect(call, daemon.output()).toMatchObject({
      phoneNumber: "+12025550190",
      firstName: "Ada",
      terminationReason: "bot-hangup",
      fields: { attending: "yes" }
    })
    stop.abort()
    await worker

    // What the daemon recorded: the end, the reminder with the contact's data, the contact's answers.
    expect(await daemon.endedConversation(apiKey, call.callId)).toMatchObject({ termination_reason: "bot-hangup" })
    const transcript = await daemon.api(apiKey, "GET", `v1/conversations/${call.callId}/transcript`) as Array<
      { speaker: string; text: string }
    >
    expect(transcript.map((turn) => turn.text)).toContain("Hi Ada, I am calling about your cleaning Thursday at 10 am.")
    expect(await daemon.api(apiKey, "GET", `v1/conversations/${call.callId}/fields`)).toEqual({
      fields: { attending: "yes" }
    })
  }, 90_000)
})
