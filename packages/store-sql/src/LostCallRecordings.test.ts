/**
 * A call whose daemon died mid-conversation, recovered from the database alone: it keeps what
 * was recorded (docs/DIALER.md and docs/MEDIA.md, "Lost calls"). The dialer's recovery and the
 * inbound sweep close it with the carrier's answer, its recording chunks finalized at one length
 * (the longest channel, and at least up to its last turn), and a duration covering them; any
 * daemon then serves every channel at that length. On both backends; racing recoveries on
 * PostgreSQL.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import * as ContactState from "@voice-agent/core/ContactState"
import type { ConversationRecord, TranscriptTurnRecord } from "@voice-agent/core/Conversation"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import type { RecordingRead } from "@voice-agent/core/ports/RecordingStore"
import * as Mixer from "@voice-agent/media/Mixer"
import * as Wav from "@voice-agent/media/Wav"
import { Context, Effect, Layer, Option, Redacted, Result, Scope, Stream } from "effect"
import { randomBytes } from "node:crypto"
import * as Database from "./Database.ts"
import * as SqlRecordingStore from "./SqlRecordingStore.ts"
import * as SqlStorage from "./SqlStorage.ts"
import * as DialStates from "./testing/DialStates.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const RATE = 8000
const FRAME = 160
const CHUNK = 4000 // half a second a chunk, so a short call has several
const now = Date.parse("2026-03-02T17:00:00.000Z")
const leaseMs = 30_000
const later = now + leaseMs + 5_000

const tone = (hz: number, samples: number) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * hz * i) / RATE)))
const agentAudio = tone(880, 34_400) // 4.3 s: 8 chunks stored, 2,400 samples still buffered at the death
const remoteAudio = tone(440, 24_800) // 3.1 s: 6 chunks stored, 800 buffered
const turns: ReadonlyArray<TranscriptTurnRecord> = [
  { speaker: "AGENT", text: "Hello, do you have a moment?", offsetMs: 0 },
  { speaker: "HUMAN", text: "Yes.", offsetMs: 2_500 },
  // said as the daemon died: after the last audio stored (4.0 s)
  { speaker: "AGENT", text: "Thank you.", offsetMs: 4_600 }
]
const recorded = 4_600 * 8 // the recorded part reaches the last turn

const callId = () => `call-${randomBytes(8).toString("hex")}`
const collect = (read: RecordingRead) => Stream.mkUint8Array(read.bytes)

/** The samples of a canonical 8 kHz mono WAV of exactly `samples`. */
const wavSamples = (bytes: Uint8Array, samples: number) => {
  const header = Result.getOrThrow(Wav.parseHeader(bytes))
  assert.deepStrictEqual([header.dataOffset, header.dataSize, header.riffSize], [44, 2 * samples, 36 + 2 * samples])
  assert.strictEqual(bytes.length, 44 + 2 * samples)
  return Wav.decodeSamples(bytes.subarray(44))
}

/** `audio`'s first `stored` samples, then silence up to `length`. */
const padded = (audio: Int16Array, stored: number, length: number) => {
  const out = new Int16Array(length)
  out.set(audio.subarray(0, stored))
  return out
}

/**
 * Writes both channels in 20 ms frames through writers whose scope is never closed: what they
 * buffered is lost, as when their process is killed.
 */
const recordThenDie = (id: string) =>
  Effect.gen(function*() {
    const store = yield* RecordingStore
    const dead = yield* Scope.make()
    for (const [channel, audio] of [["agent", agentAudio], ["remote", remoteAudio]] as const) {
      const writer = yield* store.openWriter(id, channel).pipe(Scope.provide(dead))
      for (let i = 0; i < audio.length; i += FRAME) yield* writer.write(audio.subarray(i, i + FRAME))
    }
  })

/** A campaign call placed by a dialer that died: answered 1 s after `now`, talked, recorded. */
const lostCall = Effect.gen(function*() {
  const dialer = yield* DialerRepository
  const org = yield* Fixtures.organization({ maxConcurrency: 1000 })
  const campaign = yield* Fixtures.campaign(org.id, { maxConcurrency: 1000, maxAttempts: 2, retryDelayS: 3600 })
  const [contactId] = yield* DialStates.insert(campaign, [{
    phoneNumber: Fixtures.e164(1),
    state: ContactState.initial(now - 10_000)
  }])
  // leases other tests left: recovered first, so that the next recovery takes this one only
  yield* dialer.recoverExpired({ now: later, limit: 100_000 })
  const [claim] = yield* dialer.claim({ worker: "dead", campaignIds: [campaign.id], now, leaseMs, limit: 1 })
  assert.strictEqual(claim?.contactId, contactId)
  const id = callId()
  const start = yield* dialer.startCall({ contactId: contactId!, worker: "dead", callId: id, now })
  assert(start._tag === "Dial")
  yield* (yield* CallEvents).publish(id, { _tag: "Answered", at: now + 1_000, answeredBy: "human" })
  yield* (yield* ConversationRepository).appendTurns(start.conversationId, turns)
  yield* recordThenDie(id)
  return { org, callId: id }
})

const conversation = (organizationId: string, id: string) =>
  Effect.gen(function*() {
    const conversations = yield* ConversationRepository
    return Option.getOrThrow(yield* conversations.findByCallId(organizationId, id))
  })

/** Every channel at the recorded length: what was stored, then silence. */
const assertServed = (id: string) =>
  Effect.gen(function*() {
    const store = yield* RecordingStore
    const agent = wavSamples(yield* collect(yield* store.read(id, "agent")), recorded)
    const remote = wavSamples(yield* collect(yield* store.read(id, "remote")), recorded)
    const mixed = wavSamples(yield* collect(yield* store.read(id, "mixed")), recorded)
    assert.deepStrictEqual(agent, padded(agentAudio, 8 * CHUNK, recorded))
    assert.deepStrictEqual(remote, padded(remoteAudio, 6 * CHUNK, recorded))
    assert.deepStrictEqual(mixed, Mixer.mix(agent, remote))
    // a range reads the same bytes
    const part = yield* store.read(id, "remote", { start: 44 + 2 * 23_990, end: 44 + 2 * 24_010 - 1 })
    assert.deepStrictEqual(Wav.decodeSamples(yield* collect(part)), remote.subarray(23_990, 24_010))
  })

const storage = (backend: TestDatabase.Backend) =>
  Layer.mergeAll(SqlStorage.layer, SqlRecordingStore.layer({ chunkSamples: CHUNK })).pipe(
    Layer.provideMerge(backend.layer)
  )

const backends = await TestDatabase.backends()

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`lost calls on ${backend.name}`, () => {
    layer(storage(backend), { timeout: "60 seconds" })((it) => {
      it.effect("the dialer's recovery keeps what was recorded: answer, every channel at one length, duration", () =>
        Effect.gen(function*() {
          const { callId: id, org } = yield* lostCall
          const store = yield* RecordingStore
          // before: chunks as the dead writers left them, of different lengths
          assert.strictEqual((yield* store.read(id, "agent")).size, 44 + 2 * 8 * CHUNK)
          assert.strictEqual((yield* store.read(id, "remote")).size, 44 + 2 * 6 * CHUNK)

          // a `dial` process (no recording store of its own): the recovery alone finalizes
          assert.strictEqual(yield* (yield* DialerRepository).recoverExpired({ now: later, limit: 100 }), 1)
          const closed = yield* conversation(org.id, id)
          assert.deepStrictEqual(
            [closed.answeredAt, closed.endedAt, closed.terminationReason, closed.durationSec],
            [new Date(now + 1_000), new Date(later), "bot-failure", 5] // 4.6 s, rounded up
          )
          yield* assertServed(id)

          // finalizing again (another daemon, a retried recovery) changes nothing
          assert.deepStrictEqual([...yield* store.finalizeLost([{ callId: id, atLeastSamples: 0 }])], [[id, recorded]])
          yield* assertServed(id)
        }))

      it.effect("with the recording store's finalizer, the recovery gives the same result", () =>
        Effect.gen(function*() {
          const { callId: id, org } = yield* lostCall
          const store = yield* RecordingStore
          const asked: Array<ReadonlyArray<unknown>> = []
          const recovered = yield* (yield* DialerRepository).recoverExpired({
            now: later,
            limit: 100,
            finalizeRecordings: (calls) =>
              Effect.andThen(Effect.sync(() => asked.push(calls)), store.finalizeLost(calls))
          })
          assert.strictEqual(recovered, 1)
          assert.deepStrictEqual(asked, [[{ callId: id, atLeastSamples: recorded }]])
          assert.strictEqual((yield* conversation(org.id, id)).durationSec, 5)
          yield* assertServed(id)
        }))

      it.effect("a call lost before its answer stays unanswered: duration 0, no recording", () =>
        Effect.gen(function*() {
          const dialer = yield* DialerRepository
          const org = yield* Fixtures.organization({ maxConcurrency: 1000 })
          const campaign = yield* Fixtures.campaign(org.id, { maxConcurrency: 1000 })
          const [contactId] = yield* DialStates.insert(campaign, [{
            phoneNumber: Fixtures.e164(2),
            state: ContactState.initial(now - 10_000)
          }])
          yield* dialer.recoverExpired({ now: later, limit: 100_000 })
          yield* dialer.claim({ worker: "dead", campaignIds: [campaign.id], now, leaseMs, limit: 1 })
          const id = callId()
          assert((yield* dialer.startCall({ contactId: contactId!, worker: "dead", callId: id, now }))._tag === "Dial")
          yield* (yield* CallEvents).publish(id, { _tag: "Ringing", at: now + 500 })
          assert.strictEqual(yield* dialer.recoverExpired({ now: later, limit: 100 }), 1)
          const closed = yield* conversation(org.id, id)
          assert.deepStrictEqual([closed.answeredAt, closed.durationSec], [null, 0])
          assert.deepStrictEqual(
            [...yield* (yield* RecordingStore).finalizeLost([{ callId: id, atLeastSamples: 0 }])],
            []
          )
        }))

      it.effect("the sweep of abandoned inbound calls keeps what was recorded too", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const id = callId()
          const answeredAt = new Date(now - 3_600_000)
          const inserted: ConversationRecord = yield* conversations.insert({
            callId: id,
            organizationId: org.id,
            campaignId: null,
            contactId: null,
            direction: "inbound",
            fromNumber: Fixtures.e164(3),
            toNumber: Fixtures.e164(4),
            startedAt: answeredAt,
            answeredAt,
            endedAt: null,
            durationSec: null,
            terminationReason: null
          })
          yield* conversations.appendTurns(inserted.id, turns.slice(0, 2))
          yield* recordThenDie(id)
          const closed = yield* conversations.closeAbandoned({
            kind: "inbound",
            startedBefore: new Date(now),
            now: new Date(now)
          })
          const mine = closed.filter((c) => c.callId === id)
          assert.deepStrictEqual(
            mine.map((c) => [c.answeredAt, c.terminationReason, c.durationSec]),
            [[answeredAt, "bot-failure", 4]] // the agent channel's 4.0 s, not the hour since the answer
          )
          const store = yield* RecordingStore
          assert.strictEqual((yield* store.read(id, "remote")).size, 44 + 2 * 8 * CHUNK)
          assert.strictEqual((yield* store.read(id, "mixed")).size, 44 + 2 * 8 * CHUNK)
          // swept once: a second sweep finds nothing
          assert.deepStrictEqual(
            (yield* conversations.closeAbandoned({ kind: "inbound", startedBefore: new Date(now), now: new Date(now) }))
              .filter((c) => c.callId === id),
            []
          )
        }))
    })
  })
}

const postgres = backends.find((b) => b.name === "postgres")!

describe.skipIf(postgres.skip !== undefined)("lost calls recovered by daemons racing on PostgreSQL", () => {
  it.live(
    "four daemons recover one lost call at once: one closes it, every channel at one length",
    () =>
      Effect.gen(function*() {
        const url = Redacted.make(yield* TestDatabase.freshDatabaseUrl())
        const daemon = () =>
          Layer.build(
            Layer.fresh(
              Layer.mergeAll(SqlStorage.layer, SqlRecordingStore.layer({ chunkSamples: CHUNK })).pipe(
                Layer.provideMerge(Database.layerPostgres(url, { maxConnections: 4 }))
              )
            )
          )
        const first = yield* daemon()
        const { callId: id, org } = yield* lostCall.pipe(Effect.provide(first))
        const others = [first, yield* daemon(), yield* daemon(), yield* daemon()]
        const recovered = yield* Effect.forEach(others, (context) => {
          const store = Context.get(context, RecordingStore)
          return Context.get(context, DialerRepository).recoverExpired({
            now: later,
            limit: 100,
            finalizeRecordings: store.finalizeLost
          })
        }, { concurrency: "unbounded" })
        assert.strictEqual(recovered.reduce((a, b) => a + b, 0), 1)
        const closed = yield* conversation(org.id, id).pipe(Effect.provide(first))
        assert.deepStrictEqual([closed.terminationReason, closed.durationSec], ["bot-failure", 5])
        for (const context of others) yield* assertServed(id).pipe(Effect.provide(context))
        const sql = Context.get(first, PgClient.PgClient)
        const rows = yield* sql<{ channel: string; finalSamples: string }>`
        SELECT channel AS "channel", final_samples::text AS "finalSamples" FROM recordings
        WHERE call_id = ${id} ORDER BY channel`
        assert.deepStrictEqual(rows, [
          { channel: "agent", finalSamples: String(recorded) },
          { channel: "remote", finalSamples: String(recorded) }
        ])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
