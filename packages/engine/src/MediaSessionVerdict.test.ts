import { assert, describe, it } from "@effect/vitest"
import type { TranscriptTurnRecord } from "@voice-agent/core/Conversation"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as MediaSessionVerdict from "./MediaSessionVerdict.ts"

/** A repository whose database is away for the first `failures` writes of turns. */
const flakyRepository = (failures: number) => {
  const stored: Array<TranscriptTurnRecord> = []
  let attempts = 0
  const appendTurns: ConversationRepository["Service"]["appendTurns"] = (_, turns) =>
    Effect.suspend(() => {
      attempts++
      if (attempts <= failures) return Effect.die(new Error("Connection terminated unexpectedly"))
      return Effect.sync(() => void stored.push(...turns))
    })
  // only the transcript's writes are used
  const repository = { appendTurns } as unknown as ConversationRepository["Service"]
  return { repository, stored, attempts: () => attempts }
}

describe("MediaSessionVerdict.transcript", () => {
  it.effect("a database away for a few seconds loses no turn: each batch is written again, in order", () =>
    Effect.gen(function*() {
      const db = flakyRepository(3)
      const transcript = yield* MediaSessionVerdict.transcript(db.repository, "conversation-1", "call-1")
      yield* transcript.emitTurn({ speaker: "AGENT", text: "Hello.", offsetMs: 0 })
      yield* TestClock.adjust(500)
      yield* transcript.emitTurn({ speaker: "HUMAN", text: "Alex Morgan", offsetMs: 2_000 })
      yield* TestClock.adjust(4_000)
      yield* transcript.emitTurn({ speaker: "AGENT", text: "Thank you.", offsetMs: 3_000 })
      yield* TestClock.adjust(1_000)
      yield* transcript.flush
      assert.deepStrictEqual(db.stored.map((turn) => turn.text), ["Hello.", "Alex Morgan", "Thank you."])
      assert.isAbove(db.attempts(), 3)
    }).pipe(Effect.scoped))

  it.effect("a batch that cannot be written for 30 attempts is given up, and the turns after it are written", () =>
    Effect.gen(function*() {
      const db = flakyRepository(30)
      const transcript = yield* MediaSessionVerdict.transcript(db.repository, "conversation-1", "call-1")
      yield* transcript.emitTurn({ speaker: "AGENT", text: "Hello.", offsetMs: 0 })
      yield* TestClock.adjust(40_000)
      yield* transcript.emitTurn({ speaker: "AGENT", text: "Goodbye.", offsetMs: 5_000 })
      yield* TestClock.adjust(1_000)
      yield* transcript.flush
      assert.deepStrictEqual(db.stored.map((turn) => turn.text), ["Goodbye."])
      assert.strictEqual(db.attempts(), 31)
    }).pipe(Effect.scoped))

  it.effect("turns and latencies are written by one writer, as emitted: each batch's turns, then its latencies", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      let latencyFailures = 2
      const repository = {
        appendTurns: (_: string, turns: ReadonlyArray<TranscriptTurnRecord>) =>
          Effect.sync(() => void writes.push(`turns ${turns.map((turn) => turn.text).join(", ")}`)),
        recordLatency: (_: string, latency: { readonly agentStartedMs: number }) =>
          Effect.suspend(() =>
            latencyFailures-- > 0
              ? Effect.die(new Error("Connection terminated unexpectedly"))
              : Effect.sync(() => void writes.push(`latency ${latency.agentStartedMs}`))
          )
      } as unknown as ConversationRepository["Service"]
      const transcript = yield* MediaSessionVerdict.transcript(repository, "conversation-1", "call-1")
      yield* transcript.emitTurn({ speaker: "HUMAN", text: "Yes.", offsetMs: 1_000 })
      yield* transcript.emitTurn({ speaker: "AGENT", text: "Thank you.", offsetMs: 1_800 })
      yield* transcript.emitLatency({ userStoppedMs: 1_500, agentStartedMs: 1_800, stages: {} })
      yield* TestClock.adjust(500)
      yield* transcript.emitTurn({ speaker: "AGENT", text: "Goodbye.", offsetMs: 3_000 })
      yield* TestClock.adjust(3_000)
      yield* transcript.flush
      assert.deepStrictEqual(writes, ["turns Yes., Thank you.", "latency 1800", "turns Goodbye."])
    }).pipe(Effect.scoped))
})
