import { assert, describe, it } from "@effect/vitest"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect, Exit, Layer, Option, Stream } from "effect"
import { SqlError } from "effect/sql"
import * as StorageOutages from "./StorageOutages.ts"

/** What the pg driver fails with when no connection can be opened. */
const refused = new SqlError.SqlError({
  reason: new SqlError.ConnectionError({ cause: new Error("connect ECONNREFUSED"), message: "Failed to connect" })
})

/** A store whose writes die with `defect` `failures` times, then succeed; it counts the tries. */
const flaky = (failures: number, defect: unknown) => {
  const tries = { publish: 0, appendTurns: 0, forCall: 0 }
  const published: Array<CallEvent> = []
  const fail = (key: keyof typeof tries) =>
    Effect.suspend(() => ++tries[key] <= failures ? Effect.die(defect) : Effect.void)
  const layer = Layer.mergeAll(
    Layer.succeed(
      AgentRepository,
      AgentRepository.of(
        { forCall: () => Effect.andThen(fail("forCall"), Effect.succeedNone) } as unknown as AgentRepository["Service"]
      )
    ),
    Layer.succeed(
      CallEvents,
      CallEvents.of({
        publish: (_callId, event) => Effect.andThen(fail("publish"), Effect.sync(() => published.push(event))),
        subscribe: () => Effect.succeed(Stream.empty)
      })
    ),
    Layer.succeed(
      ConversationRepository,
      ConversationRepository.of(
        {
          appendTurns: () => fail("appendTurns"),
          callContext: () => Effect.succeedNone,
          recordField: () => Effect.void
        } as unknown as ConversationRepository["Service"]
      )
    )
  )
  return { tries, published, layer: StorageOutages.layer.pipe(Layer.provideMerge(layer)) }
}

describe("StorageOutages", () => {
  it.live("a call's events, transcript and agent wait for a database out of reach, and then are written", () =>
    Effect.gen(function*() {
      const store = flaky(2, refused)
      yield* Effect.gen(function*() {
        yield* (yield* CallEvents).publish("call-1", { _tag: "Ended", at: 1, reason: "remote-hangup" })
        yield* (yield* ConversationRepository).appendTurns("conversation-1", [])
        // The agent a media session runs, read as its stream starts.
        assert.isTrue(Option.isNone(yield* (yield* AgentRepository).forCall("call-1")))
      }).pipe(Effect.provide(store.layer))
      assert.deepStrictEqual(store.tries, { publish: 3, appendTurns: 3, forCall: 3 })
      assert.deepStrictEqual(store.published, [{ _tag: "Ended", at: 1, reason: "remote-hangup" }])
    }))

  it.live("any other failure passes through at once", () =>
    Effect.gen(function*() {
      const store = flaky(1, new Error("a bug"))
      const exit = yield* Effect.exit(
        Effect.flatMap(CallEvents, (events) => events.publish("call-1", { _tag: "Ringing", at: 1 })).pipe(
          Effect.provide(store.layer)
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(store.tries.publish, 1)
    }))
})
