/**
 * A campaign through a SIP trunk, end to end: the real daemon with `VOICE_AGENT_CARRIER=sip`,
 * and SIPp as the trunk (`packages/carrier-sip/sipp/trunk.xml`, a UAS answering each number as
 * its last digits say). The person's speech crosses in RTP: SIPp plays a raw μ-law file this
 * test makes (simulated speech, which the daemon's default recognizer transcribes). The
 * contacts: one who answers and talks, an answering machine (a long greeting and a beep, which
 * only the engine can tell: a trunk answers 200 either way), busy (486), no answer (rings until
 * the daemon's CANCEL at `SIP_RING_TIMEOUT_S`), and a trunk failure (503). A live listener hears
 * the talking call from its answer (the SIP call's media session publishes to live listen).
 *
 * SIPp must be installed (Debian's sip-tester): without it the test fails and says so.
 */
import { assert, describe, it } from "@effect/vitest"
import { defaultScript } from "@voice-agent/agents/ScriptedAgent"
import { Effect, Fiber, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Audio from "../../packages/carrier-sip/scripts/kit/Audio.ts"
import * as Sipp from "../../packages/carrier-sip/scripts/kit/Sipp.ts"
import * as Daemon from "../support/Daemon.ts"
import * as Listener from "../support/Listener.ts"

interface Conversation {
  readonly call_id: string
  readonly to_number: string
  readonly termination_reason: string | null
  readonly duration_sec: number | null
}
interface Turn {
  readonly speaker: "HUMAN" | "AGENT"
  readonly text: string
  readonly offset_ms: number
}

const host = "127.0.0.1"

/** What sox reads of a WAV file: `soxi`'s sample rate, channels and duration in seconds. */
const soxi = (file: string) => {
  const run = (flag: string) => {
    const result = spawnSync("soxi", [flag, file], { encoding: "utf8" })
    if (result.error !== undefined) throw new Error(`soxi (Debian's sox) cannot run: ${result.error.message}`)
    if (result.status !== 0) throw new Error(`soxi ${flag} ${file}: ${result.stderr}`)
    return Number(result.stdout.trim())
  }
  return { rate: run("-r"), channels: run("-c"), seconds: run("-D") }
}

describe("a campaign through a SIP trunk (SIPp), on a daemon", () => {
  it.live(
    "each outcome ends with CONTRACT §5's status and reason; the person is heard and recorded",
    () =>
      Effect.gen(function*() {
        const numbers = {
          talks: "+12025550111",
          machine: "+12025550122",
          busy: "+12025550486",
          noAnswer: "+12025550408",
          failure: "+12025550503"
        }
        const { dir, port, trunk } = yield* Sipp.startTrunk({
          host,
          prefix: "va-sip-campaign-",
          calls: Object.keys(numbers).length,
          timeoutS: 90
        })
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_CARRIER: "sip",
          SIP_TRUNK: `sip:${host}:${port}`,
          SIP_LISTEN: `${host}:0`,
          SIP_RING_TIMEOUT_S: "2",
          RTP_PORTS: "30000-39999"
        })
        assert.isDefined(api.stdout.find((line) => /SIP carrier listening on 127\.0\.0\.1:\d+/.test(line)))
        const key = Option.getOrThrow(api.apiKey)
        const code = yield* Daemon.campaignWithContacts(
          api.url,
          key,
          "sip-trunk",
          Object.values(numbers).map((phone_number) => ({ phone_number, data: { name: "Ada" } }))
        )
        // A live listener on the talking call from as soon as it is listed (ringing).
        const listened = yield* Effect.forkChild(Effect.gen(function*() {
          const call = yield* Listener.firstListed(api.url, key, numbers.talks)
          const listenedAt = Date.now()
          const { code, heard } = yield* Listener.listenWithClose(
            Listener.listenUrl(api.url, call.call_id, "channel=mixed"),
            key
          )
          return { heard, code, callId: call.call_id, seconds: (Date.now() - listenedAt) / 1000 }
        }))
        for (const number of Object.values(numbers)) {
          yield* api.waitFor(new RegExp(`to \\${number} ended:`)).pipe(Effect.timeout("60 seconds"))
        }
        const live = yield* Fiber.join(listened)
        Listener.assertAudioFromAnswer(
          live.heard,
          `the SIP call, live (closed ${live.code} after ${live.seconds} s; the daemon said: ${
            api.stdout.filter((line) => line.includes(live.callId)).join(" | ")
          })`
        )

        const conversations = ((yield* Daemon.request(`${api.url}/v1/conversations`, Daemon.bearer(key))).body as {
          conversations: ReadonlyArray<Conversation>
        }).conversations
        const byNumber = new Map(conversations.map((c) => [c.to_number, c]))
        const statuses = new Map(
          ((yield* Daemon.request(`${api.url}/v2/contacts?campaign_code=${code}`, Daemon.bearer(key))).body as {
            contacts: ReadonlyArray<{ phone_number: string; status: string }>
          }).contacts.map((c) => [c.phone_number, c.status])
        )
        const expected: Record<string, readonly [status: string, reason: string]> = {
          [numbers.talks]: ["COMPLETED", "bot-hangup"],
          [numbers.machine]: ["PARTIALLY_COMPLETED", "voicemail"],
          [numbers.busy]: ["FAILED", "busy"],
          [numbers.noAnswer]: ["FAILED", "no-answer"],
          [numbers.failure]: ["FAILED", "failed"]
        }
        for (const [number, [status, reason]] of Object.entries(expected)) {
          assert.strictEqual(statuses.get(number), status, number)
          assert.strictEqual(byNumber.get(number)?.termination_reason, reason, number)
        }
        // The trunk's own words, in the operator's log.
        assert.isDefined(api.stdout.find((line) => line.includes("the trunk answered 486 Busy Here")))
        assert.isDefined(api.stdout.find((line) => line.includes("the trunk answered 503 Service Unavailable")))
        assert.isDefined(api.stdout.find((line) => /to \+12025550408: no answer in 2 s, CANCEL/.test(line)))

        const transcript = (number: string) =>
          Effect.map(
            Daemon.request(
              `${api.url}/v1/conversations/${byNumber.get(number)!.call_id}/transcript`,
              Daemon.bearer(key)
            ),
            (response) => response.body as ReadonlyArray<Turn>
          )
        // The person, heard from RTP where their audio put them: the answer 7.5 s in.
        const talk = yield* transcript(numbers.talks)
        assert.include(talk.find((t) => t.speaker === "AGENT")?.text, "Ada", JSON.stringify(talk))
        const answer = talk.find((t) => t.speaker === "HUMAN" && t.text === "Yes, I have a moment.")
        assert.isDefined(answer, JSON.stringify(talk))
        assert.approximately(answer.offset_ms, Audio.timings.answerAtMs, 400, "aligned with the call's timeline")
        assert.include(talk.map((t) => t.text), defaultScript.thanks)
        // The machine told by the engine, left the voicemail message and nothing else.
        assert.deepStrictEqual(
          (yield* transcript(numbers.machine)).filter((t) => t.speaker === "AGENT").map((t) => t.text),
          [defaultScript.voicemail]
        )
        assert.isDefined(
          api.stdout.find((line) =>
            line.includes(`Call ${byNumber.get(numbers.machine)!.call_id}: answered by a machine`)
          )
        )
        for (const number of [numbers.busy, numbers.noAnswer, numbers.failure]) {
          assert.deepStrictEqual(yield* transcript(number), [], number)
        }

        // The recordings of the answered call: WAV files sox reads, as long as the call.
        const call = byNumber.get(numbers.talks)!
        const lengths: Array<number> = []
        for (const channel of ["agent", "remote", "mixed"]) {
          const response = yield* Effect.promise(() =>
            fetch(`${api.url}/v1/conversations/${call.call_id}/channels/${channel}/recording`, Daemon.bearer(key))
          )
          assert.strictEqual(response.status, 200, channel)
          const file = path.join(dir, `${channel}.wav`)
          fs.writeFileSync(file, new Uint8Array(yield* Effect.promise(() => response.arrayBuffer())))
          const read = soxi(file)
          assert.strictEqual(read.rate, 8000, channel)
          assert.strictEqual(read.channels, 1, channel)
          lengths.push(read.seconds)
        }
        assert.isAtLeast(lengths[0]!, 9, "the call lasted past the agent's goodbye")
        assert.strictEqual(new Set(lengths).size, 1, `channels of one length (aligned): ${lengths.join(", ")}`)

        // Every call followed the trunk's scenario (ACKs, the CANCEL, the BYEs), as SIPp saw it.
        const sippExit = yield* trunk.exited.pipe(Effect.timeout("30 seconds"))
        assert.strictEqual(sippExit, 0, trunk.failures())
        assert.strictEqual(yield* api.stop("SIGTERM"), 0)
        fs.rmSync(dir, { recursive: true, force: true })
      }),
    { timeout: 120_000 }
  )
})
