/**
 * Answering machines detected by the engine, end to end on a real daemon: the simulated carrier
 * in the mode of a carrier that cannot tell (`VOICE_AGENT_SIM_MACHINE_DETECTION=engine`, as a
 * SIP trunk), so every answered call's `Answered` says `unknown` and the engine decides from the
 * call's first seconds of audio. A campaign ends as it does when the carrier detects: the
 * answering machine's number `voicemail`, with the scripted agent's voicemail message after the
 * beep (in its transcript and in the agent recording), the people who talk `completed`, the one
 * who hangs up at once cut short.
 */
import { assert, describe, it } from "@effect/vitest"
import { defaultScript } from "@voice-agent/agents/ScriptedAgent"
import * as SimPerson from "@voice-agent/carrier-sim/SimPerson"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as Wav from "@voice-agent/media/Wav"
import { Effect, Option } from "effect"
import * as Daemon from "../support/Daemon.ts"

interface Conversation {
  readonly call_id: string
  readonly to_number: string
  readonly termination_reason: string | null
}
interface Turn {
  readonly speaker: "HUMAN" | "AGENT"
  readonly text: string
  readonly offset_ms: number
}

describe("answering machines the carrier cannot tell, on a daemon", () => {
  it.live(
    "the machine's number ends voicemail with the voicemail message after the beep; people talk as usual",
    () =>
      Effect.gen(function*() {
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_SIM_MACHINE_DETECTION: "engine"
        })
        const key = Option.getOrThrow(api.apiKey)
        const numbers = {
          conversation: "+12025550102",
          voicemail: "+12025550142",
          earlyHangup: "+12025550182",
          neverHangsUp: "+12025550192"
        }
        const code = yield* Daemon.campaignWithContacts(
          api.url,
          key,
          "engine-detects",
          Object.values(numbers).map((phone_number) => ({ phone_number, data: { name: "Ada" } }))
        )
        for (const number of Object.values(numbers)) {
          yield* api.waitFor(new RegExp(`to \\${number} ended:`)).pipe(Effect.timeout("60 seconds"))
        }
        const list = (yield* Daemon.request(`${api.url}/v1/conversations`, Daemon.bearer(key))).body as {
          conversations: ReadonlyArray<Conversation>
        }
        const byNumber = new Map(list.conversations.map((c) => [c.to_number, c]))
        const statuses = new Map(
          ((yield* Daemon.request(`${api.url}/v2/contacts?campaign_code=${code}`, Daemon.bearer(key))).body as {
            contacts: ReadonlyArray<{ phone_number: string; status: string }>
          }).contacts.map((c) => [c.phone_number, c.status])
        )
        // as with the carrier's detection (test/daemon/calls.test.ts)
        const expected: Record<string, readonly [status: string, reason: string, answeredBy: string]> = {
          [numbers.conversation]: ["COMPLETED", "user-hangup", "a person (short-greeting"],
          [numbers.voicemail]: ["PARTIALLY_COMPLETED", "voicemail", "a machine (long-greeting"],
          [numbers.earlyHangup]: ["PARTIALLY_COMPLETED", "user-hangup", ""],
          [numbers.neverHangsUp]: ["COMPLETED", "bot-hangup", "a person (short-greeting"]
        }
        for (const [number, [status, reason, answeredBy]] of Object.entries(expected)) {
          const call = byNumber.get(number)
          assert.isDefined(call, number)
          assert.strictEqual(statuses.get(number), status, number)
          assert.strictEqual(call.termination_reason, reason, number)
          if (answeredBy !== "") {
            const decided = api.stdout.find((line) => line.includes(`Call ${call.call_id}: answered by`))
            assert.include(decided, answeredBy, number)
          }
          const turns = (yield* Daemon.request(
            `${api.url}/v1/conversations/${call.call_id}/transcript`,
            Daemon.bearer(key)
          )).body as ReadonlyArray<Turn>
          if (number === numbers.conversation || number === numbers.neverHangsUp) {
            assert.include(turns.find((t) => t.speaker === "AGENT")?.text, "Ada", "greeted by the contact's data")
            assert.include(turns.map((t) => t.text), "Yes, I have a moment.", "the person's answer, heard")
            // the agent starts after the person's hello and the silence that says a person
            assert.isAtLeast(turns[0]!.offset_ms, 1200, JSON.stringify(turns))
          }
          if (number !== numbers.voicemail) continue
          assert.deepStrictEqual(
            turns.filter((t) => t.speaker === "AGENT").map((t) => t.text),
            [defaultScript.voicemail],
            "the voicemail message, and nothing else"
          )
          // In the agent's recording, after the machine's greeting, its 300 ms of silence and its beep.
          const response = yield* Effect.promise(() =>
            fetch(`${api.url}/v1/conversations/${call.call_id}/channels/agent/recording`, Daemon.bearer(key))
          )
          assert.strictEqual(response.status, 200)
          const bytes = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
          const said = SimSpeech.decode(Wav.decodeSamples(bytes.subarray(44)))
          assert.deepStrictEqual(said.map((u) => u.text), [defaultScript.voicemail])
          const beepEndMs = SimVoice.speak(SimPerson.voicemailGreeting, "person").length / 8 +
            SimPerson.timings.beepGapMs + SimPerson.timings.beepMs
          assert.isAtLeast(said[0]!.start / 8, beepEndMs, "left after the beep")
        }
        assert.strictEqual(yield* api.stop("SIGTERM"), 0)
      }),
    { timeout: 120_000 }
  )
})
