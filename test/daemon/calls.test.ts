/**
 * Calls that talk, end to end on a real daemon: the dialer places the calls, the simulated
 * carrier streams each answered one over a real WebSocket to the daemon's media endpoint, the
 * scripted agent and the simulated person speak simulated speech across it, and every answered
 * call leaves HUMAN and AGENT turns and three recordings served over HTTP; calls never answered
 * leave neither. The scripted agent's one reply (its thanks; the greeting is not a reply) has
 * its turn latency, starting after the speech it answers ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { WaveFile } from "wavefile"
import * as Daemon from "../support/Daemon.ts"

interface Conversation {
  readonly call_id: string
  readonly to_number: string
  readonly termination_reason: string | null
  readonly duration_sec: number | null
}
interface Latency {
  readonly turns: ReadonlyArray<
    { readonly user_stopped_ms: number; readonly agent_started_ms: number; readonly voice_to_voice_ms: number }
  >
  readonly summary: { readonly count: number }
}
interface Turn {
  readonly speaker: "HUMAN" | "AGENT"
  readonly text: string
  readonly offset_ms: number
}

describe("calls that talk, on a daemon", () => {
  it.live(
    "answered calls have turns and three recordings; unanswered calls have neither",
    () =>
      Effect.gen(function*() {
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"])
        const key = Option.getOrThrow(api.apiKey)
        const numbers = {
          conversation: "+12025550101",
          voicemail: "+12025550141",
          busy: "+12025550151",
          earlyHangup: "+12025550181",
          neverHangsUp: "+12025550191"
        }
        const code = yield* Daemon.campaignWithContacts(
          api.url,
          key,
          "talk",
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
        const expected: Record<string, readonly [status: string, reason: string]> = {
          [numbers.conversation]: ["COMPLETED", "user-hangup"],
          [numbers.voicemail]: ["PARTIALLY_COMPLETED", "voicemail"],
          [numbers.busy]: ["FAILED", "busy"],
          [numbers.earlyHangup]: ["PARTIALLY_COMPLETED", "user-hangup"],
          [numbers.neverHangsUp]: ["COMPLETED", "bot-hangup"]
        }
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "va-calls-"))
        try {
          for (const [number, [status, reason]] of Object.entries(expected)) {
            const call = byNumber.get(number)
            assert.isDefined(call, number)
            assert.strictEqual(statuses.get(number), status, number)
            assert.strictEqual(call.termination_reason, reason, number)
            const transcript = (yield* Daemon.request(
              `${api.url}/v1/conversations/${call.call_id}/transcript`,
              Daemon.bearer(key)
            )).body as ReadonlyArray<Turn>
            const turns = transcript
            const latency = (yield* Daemon.request(
              `${api.url}/v1/conversations/${call.call_id}/latency`,
              Daemon.bearer(key)
            )).body as Latency
            assert.strictEqual(latency.summary.count, latency.turns.length, number)
            if (number === numbers.conversation || number === numbers.neverHangsUp) {
              assert.strictEqual(latency.turns.length, 1, `${number}: one reply in ${JSON.stringify(latency)}`)
            }
            if (number === numbers.busy || number === numbers.voicemail) {
              assert.deepStrictEqual(latency.turns, [], `${number}: no reply to a person`)
            }
            for (const turn of latency.turns) {
              assert.isAtLeast(turn.agent_started_ms, turn.user_stopped_ms, `${number}: ${JSON.stringify(turn)}`)
              assert.strictEqual(turn.voice_to_voice_ms, turn.agent_started_ms - turn.user_stopped_ms, number)
            }
            const recording = (channel: string) =>
              fetch(`${api.url}/v1/conversations/${call.call_id}/channels/${channel}/recording`, Daemon.bearer(key))
            if (number === numbers.busy) {
              assert.deepStrictEqual(turns, [], "never answered: no transcript")
              assert.strictEqual((yield* Effect.promise(() => recording("mixed"))).status, 404)
              continue
            }
            assert.isTrue(
              turns.some((t) => t.speaker === "AGENT"),
              `${number}: AGENT turns in ${JSON.stringify(turns)}`
            )
            assert.isTrue(
              turns.some((t) => t.speaker === "HUMAN"),
              `${number}: HUMAN turns in ${JSON.stringify(turns)}`
            )
            if (number === numbers.conversation || number === numbers.neverHangsUp) {
              assert.include(turns.find((t) => t.speaker === "AGENT")!.text, "Ada", "greeted by the contact's data")
              assert.include(turns.map((t) => t.text), "Yes, I have a moment.", "the person's answer, heard")
            }
            for (let i = 1; i < turns.length; i++) assert.isAtLeast(turns[i]!.offset_ms, turns[i - 1]!.offset_ms)
            for (const channel of ["agent", "remote", "mixed"]) {
              const response = yield* Effect.promise(() => recording(channel))
              assert.strictEqual(response.status, 200, `${number} ${channel}`)
              assert.strictEqual(response.headers.get("content-type"), "audio/wav")
              const bytes = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
              assert.isAbove(bytes.length, 44 + 8000, `${number} ${channel}: more than half a second of audio`)
              const file = path.join(dir, `${call.call_id}-${channel}.wav`)
              fs.writeFileSync(file, bytes)
              if (spawnSync("sox", ["--version"]).status === 0) {
                const info = spawnSync("sox", ["--i", file], { encoding: "utf8" })
                assert.strictEqual(info.status, 0, info.stderr)
              }
              // wavefile reads it too: PCM, 8 kHz, 16-bit, mono, as long as the call was answered.
              const wav = new WaveFile(bytes)
              const fmt = wav.fmt as {
                audioFormat: number
                sampleRate: number
                bitsPerSample: number
                numChannels: number
              }
              assert.deepStrictEqual(
                [fmt.audioFormat, fmt.sampleRate, fmt.bitsPerSample, fmt.numChannels],
                [1, 8000, 16, 1],
                `${number} ${channel}`
              )
              const seconds = wav.getSamples(false).length / 8000
              assert.approximately(seconds, call.duration_sec ?? 0, 1.5, `${number} ${channel}: ${seconds} s`)
            }
          }
        } finally {
          fs.rmSync(dir, { recursive: true, force: true })
        }
        assert.strictEqual(yield* api.stop("SIGTERM"), 0)
      }),
    { timeout: 120_000 }
  )
})
