import { assert, describe, layer } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { DaemonDirectory } from "@voice-agent/core/ports/DaemonDirectory"
import { Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const t0 = new Date("2026-11-20T17:00:00.000Z")
const at = (ms: number) => new Date(t0.getTime() + ms)
const day = 24 * 60 * 60 * 1000

/** A daemon id of this test only (the suite's database is shared by its tests). */
const daemonId = (name: string) => `${name}-${randomBytes(4).toString("hex")}`

/** A call of a new organization that has not ended (as the dialer records one it places). */
const liveCall = Effect.gen(function*() {
  const org = yield* Fixtures.organization()
  return yield* (yield* ConversationRepository).insert({
    callId: `CA${randomBytes(12).toString("hex")}`,
    organizationId: org.id,
    campaignId: null,
    contactId: null,
    direction: "outbound",
    fromNumber: Fixtures.randomE164(),
    toNumber: Fixtures.randomE164(),
    startedAt: t0,
    answeredAt: null,
    endedAt: null,
    durationSec: null,
    terminationReason: null
  })
})

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlDaemonDirectory on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("a call's media server is the daemon that recorded it, with its address while announced", () =>
        Effect.gen(function*() {
          const directory = yield* DaemonDirectory
          const call = yield* liveCall
          const id = daemonId("serving")
          assert.isTrue(Option.isNone(yield* directory.mediaServer(call.callId)), "no media session yet")

          yield* directory.announce({
            daemon: { id, internalUrl: "http://10.0.0.7:8080" },
            now: t0,
            forgetBefore: at(-day)
          })
          yield* directory.servesMedia(call.callId, id)
          assert.deepStrictEqual(
            yield* directory.mediaServer(call.callId),
            Option.some({ daemonId: id, internalUrl: "http://10.0.0.7:8080" })
          )
          // Announced again (a restart on another address would be another id; this is a renewal).
          yield* directory.announce({
            daemon: { id, internalUrl: "http://10.0.0.8:8080" },
            now: at(10_000),
            forgetBefore: at(-day)
          })
          assert.deepStrictEqual(
            yield* directory.mediaServer(call.callId),
            Option.some({ daemonId: id, internalUrl: "http://10.0.0.8:8080" })
          )
          yield* directory.withdraw(id)
          assert.deepStrictEqual(
            yield* directory.mediaServer(call.callId),
            Option.some({ daemonId: id, internalUrl: null }),
            "a daemon that stopped: the call names it, nobody answers at its address"
          )

          assert.isTrue(Option.isNone(yield* directory.mediaServer("CA-unknown")))
          assert.isTrue(Option.isNone(yield* directory.mediaServer("CA\u0000")), "unstorable call id")
          yield* directory.servesMedia("CA\u0000", id)
        }))

      it.effect("live lists the daemons heard from since; an announcement forgets those silent for long", () =>
        Effect.gen(function*() {
          const directory = yield* DaemonDirectory
          const [old, recent, starting] = [daemonId("old"), daemonId("recent"), daemonId("starting")]
          yield* directory.announce({
            daemon: { id: old, internalUrl: "http://old" },
            now: at(-2 * day),
            forgetBefore: at(-3 * day)
          })
          yield* directory.announce({
            daemon: { id: recent, internalUrl: "http://recent" },
            now: at(-60_000),
            forgetBefore: at(-3 * day)
          })
          const ours = (daemons: ReadonlyArray<{ readonly id: string }>) =>
            daemons.map((d) => d.id).filter((id) => [old, recent, starting].includes(id)).sort()
          assert.deepStrictEqual(ours(yield* directory.live(at(-3 * day))), [old, recent].sort())
          assert.deepStrictEqual(ours(yield* directory.live(at(-90_000))), [recent], "heard from since")

          yield* directory.announce({
            daemon: { id: starting, internalUrl: "http://starting" },
            now: t0,
            forgetBefore: at(-day)
          })
          assert.deepStrictEqual(
            ours(yield* directory.live(at(-3 * day))),
            [recent, starting].sort(),
            "the one silent for two days is forgotten"
          )
        }))
    })
  })
}
