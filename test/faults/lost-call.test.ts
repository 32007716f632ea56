/**
 * A call cut by its daemon's death keeps what was recorded (docs/DIALER.md and docs/MEDIA.md,
 * "Lost calls"), seen as a user sees it, through the HTTP API of real `voice-agent serve`
 * processes:
 *
 * - three daemons on one PostgreSQL, recordings in the database: the daemon holding a call is
 *   SIGKILLed in the middle of its conversation; another recovers it, and every daemon then
 *   serves it as `bot-failure` with its duration, its transcript and its three recordings
 *   (read by sox) agreeing: each recording within 1.5 s of `duration_sec`, every turn within it;
 * - one daemon on an embedded data directory, recordings as files: the same, once the daemon is
 *   restarted on that directory (it recovers its own lost call and finalizes the files it left).
 *
 * The person (a number ending 0190: answers, never hangs up) talks with the scripted agent; the
 * kill comes once the transcript holds the person's answer. Synchronization is on what the API
 * and the database show, never on time.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Context, Effect, Layer, Option, Redacted, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Daemon from "../support/Daemon.ts"

const postgres = (await TestDatabase.backends()).find((backend) => backend.name === "postgres")
const talksForever = "+12025550190"
// A lease of 2 s: a killed daemon's call is recovered within two leases.
const leaseEnv = { VOICE_AGENT_DIALER_LEASE_MS: "2000" }

interface Turn {
  readonly speaker: string
  readonly text: string
  readonly offset_ms: number
}
interface Conversation {
  readonly call_id: string
  readonly duration_sec: number | null
  readonly termination_reason: string | null
}

const get = (url: string, key: string) => Daemon.request(url, Daemon.bearer(key))

/** Polls `attempt` every 100 ms until it answers a value, for at most `seconds`. */
const eventually = <A>(what: string, seconds: number, attempt: Effect.Effect<Option.Option<A>>) =>
  attempt.pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(what), onSome: Effect.succeed })),
    Effect.retry(Schedule.spaced("100 millis")),
    Effect.timeoutOrElse({
      duration: `${seconds} seconds`,
      orElse: () => Effect.die(new Error(`${what}: not within ${seconds} s`))
    })
  )

/** The call of the campaign's only contact, once the transcript holds the person's answer. */
const inConversation = (url: string, key: string) =>
  eventually(
    "a call with the person's answer in its transcript",
    60,
    Effect.gen(function*() {
      const listed = yield* get(`${url}/v1/conversations`, key)
      const call = (listed.body as { conversations: ReadonlyArray<Conversation> }).conversations[0]
      if (call === undefined) return Option.none()
      const transcript = yield* get(`${url}/v1/conversations/${call.call_id}/transcript`, key)
      const turns = transcript.body as ReadonlyArray<Turn>
      return turns.some((turn) => turn.speaker === "HUMAN") ? Option.some(call.call_id) : Option.none()
    })
  )

/** The call once it has ended (recovered from its dead daemon). */
const ended = (url: string, key: string, callId: string) =>
  eventually(
    `call ${callId} closed`,
    60,
    Effect.map(get(`${url}/v1/conversations/${callId}`, key), (reply) => {
      const call = reply.body as Conversation
      return reply.status === 200 && call.termination_reason !== null ? Option.some(call) : Option.none()
    })
  )

/** Seconds of audio sox reads in `file`, after checking it decodes whole without a warning. */
const soxSeconds = (file: string) => {
  const decode = spawnSync("sox", ["-V2", file, "-n"], { encoding: "utf8" })
  assert.strictEqual(decode.status, 0, decode.stderr)
  assert.strictEqual(decode.stderr, "", `sox reads ${file} without a warning`)
  const info = spawnSync("sox", ["--i", "-D", file], { encoding: "utf8" })
  assert.strictEqual(info.status, 0, info.stderr)
  return Number(info.stdout.trim())
}

/**
 * What `url` serves of the lost call: `bot-failure` with a duration, every turn within it, and
 * three recordings sox reads within 1.5 s of it. Answers the duration.
 */
const assertKeptWhatWasRecorded = (url: string, key: string, callId: string, downloads: string) =>
  Effect.gen(function*() {
    const call = (yield* get(`${url}/v1/conversations/${callId}`, key)).body as Conversation
    assert.strictEqual(call.termination_reason, "bot-failure")
    const duration = call.duration_sec ?? 0
    assert.isAbove(duration, 0, "the answered and recorded part")

    const turns = (yield* get(`${url}/v1/conversations/${callId}/transcript`, key)).body as ReadonlyArray<Turn>
    assert.deepStrictEqual(turns.slice(0, 2).map((turn) => turn.speaker), ["AGENT", "HUMAN"])
    for (const turn of turns) assert.isAtMost(turn.offset_ms, duration * 1000, `"${turn.text}" within the duration`)

    const base = `${url}/v1/conversations/${callId}`
    for (
      const [channel, route] of [
        ["agent", `${base}/channels/agent/recording`],
        ["remote", `${base}/channels/remote/recording`],
        ["mixed", `${base}/channels/mixed/recording`],
        ["plain", `${base}/recording`]
      ] as const
    ) {
      const reply = yield* Effect.promise(() => fetch(route, Daemon.bearer(key)))
      assert.strictEqual(reply.status, 200, `${channel} recording`)
      assert.strictEqual(reply.headers.get("content-type"), "audio/wav")
      const file = path.join(downloads, `${callId}-${channel}-${url.replace(/\W/g, "")}.wav`)
      fs.writeFileSync(file, new Uint8Array(yield* Effect.promise(() => reply.arrayBuffer())))
      const seconds = soxSeconds(file)
      assert.isAtMost(Math.abs(seconds - duration), 1.5, `${channel}: ${seconds} s read by sox, duration ${duration} s`)
      // rounded up to whole seconds: never shorter than the recording, never a second longer
      assert.isAtLeast(duration, seconds, channel)
      assert.isBelow(duration - seconds, 1, channel)
    }
    return duration
  })

describe("a call whose daemon is SIGKILLed mid-conversation", () => {
  it.live.skipIf(postgres?.skip !== undefined)(
    "three daemons on PostgreSQL, recordings in the database: any daemon serves it with what was recorded",
    () =>
      Effect.gen(function*() {
        const url = yield* TestDatabase.freshDatabaseUrl("voice_agent_lost_call")
        const env = { DATABASE_URL: url, VOICE_AGENT_RECORDINGS: "database", ...leaseEnv }
        const daemons = []
        for (let i = 0; i < 3; i++) {
          const daemon = yield* Daemon.serve(["--port", "0"], env)
          const worker = /Dialer (\S+) started/.exec(yield* daemon.waitFor(/Dialer (\S+) started/))![1]!
          daemons.push({ daemon, worker })
        }
        const key = Option.getOrThrow(daemons[0]!.daemon.apiKey)
        yield* Daemon.campaignWithContacts(daemons[0]!.daemon.url, key, "lost", [{ phone_number: talksForever }])
        const callId = yield* inConversation(daemons[0]!.daemon.url, key)

        // the daemon holding the call (its dialer, its media session, the simulated carrier's
        // person) dies with the conversation going on
        const sql = Context.get(
          yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })).pipe(Effect.orDie),
          SqlClient.SqlClient
        )
        const held = yield* sql<{ readonly worker: string }>`
          SELECT c.dialing_worker AS "worker" FROM contacts c JOIN conversations v ON v.id = c.dialing_conversation_id
          WHERE v.call_id = ${callId} AND v.ended_at IS NULL`.pipe(Effect.orDie)
        assert.strictEqual(held.length, 1, "the call was still going when the transcript was read")
        const victim = daemons.find((d) => d.worker === held[0]!.worker)!
        yield* victim.daemon.stop("SIGKILL")
        const survivors = daemons.filter((d) => d !== victim)

        yield* ended(survivors[0]!.daemon.url, key, callId)
        const downloads = yield* Daemon.tempDir
        const durations = []
        for (const { daemon } of survivors) {
          durations.push(yield* assertKeptWhatWasRecorded(daemon.url, key, callId, downloads))
        }
        assert.strictEqual(durations[0], durations[1], "every daemon serves the same call")
        for (const { daemon } of survivors) assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )

  it.live(
    "one daemon on an embedded data directory, recordings as files: restarted, it serves them finalized",
    () =>
      Effect.gen(function*() {
        const dataDir = yield* Daemon.tempDir
        const args = ["--port", "0", "--data-dir", dataDir]
        const first = yield* Daemon.serve(args, leaseEnv)
        const key = Option.getOrThrow(first.apiKey)
        yield* Daemon.campaignWithContacts(first.url, key, "lost", [{ phone_number: talksForever }])
        const callId = yield* inConversation(first.url, key)
        yield* first.stop("SIGKILL")

        // the same daemon comes back on its directory, recovers its lost call and finalizes the
        // files it left
        const second = yield* Daemon.serve(args, leaseEnv)
        yield* ended(second.url, key, callId)
        const duration = yield* assertKeptWhatWasRecorded(second.url, key, callId, yield* Daemon.tempDir)
        for (const channel of ["agent", "remote"]) {
          const file = path.join(dataDir, "recordings", callId, `${channel}.wav`)
          const seconds = soxSeconds(file)
          assert.isAtMost(Math.abs(seconds - duration), 1, `${channel}.wav: ${seconds} s, duration ${duration} s`)
          // the header declares the whole file: nothing trails it
          assert.strictEqual(fs.statSync(file).size, 44 + 2 * Math.round(seconds * 8000), channel)
        }
        assert.strictEqual(yield* second.stop("SIGTERM"), 0)
      }).pipe(Effect.scoped),
    { timeout: 180_000 }
  )
})
