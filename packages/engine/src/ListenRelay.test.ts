import { assert, describe, it } from "@effect/vitest"
import type { DaemonAddress } from "@voice-agent/core/ports/DaemonDirectory"
import { DaemonDirectory } from "@voice-agent/core/ports/DaemonDirectory"
import { MediaConnectError, MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { Effect, Exit, Layer, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as ListenRelay from "./ListenRelay.ts"
import * as RelayGrant from "./RelayGrant.ts"

const cursorKey = new Uint8Array(32).fill(5)
const self: DaemonAddress = { id: "host-1-aaaaaa", internalUrl: "http://127.0.0.1:8080" }

/** A directory that keeps what it was told, in order. */
const recordingDirectory = () => {
  const told: Array<string> = []
  const layer = Layer.succeed(
    DaemonDirectory,
    DaemonDirectory.of({
      announce: ({ daemon, now }) => Effect.sync(() => void told.push(`announce ${daemon.id} ${now.getTime()}`)),
      withdraw: (id) => Effect.sync(() => void told.push(`withdraw ${id}`)),
      live: () => Effect.succeed([]),
      servesMedia: (callId, id) => Effect.sync(() => void told.push(`media ${callId} ${id}`)),
      mediaServer: () => Effect.succeedNone
    })
  )
  return { told, layer }
}

const others = Layer.mergeAll(
  Layer.succeed(ServerSecrets, ServerSecrets.of({ cursorKey: Effect.succeed(cursorKey) })),
  Layer.succeed(
    MediaConnector,
    MediaConnector.of({ connect: (url) => Effect.fail(new MediaConnectError({ url, message: "refused" })) })
  )
)

const grant: RelayGrant.Grant = {
  daemonId: self.id,
  organizationId: "6f1c3c39-3c3c-4c3c-8c3c-3c3c3c3c3c3c",
  callId: "CA1",
  channel: "agent",
  fromAnswer: false
}

describe("ListenRelay", () => {
  it.effect("announces the daemon, renews it every heartbeat, and withdraws it when released", () =>
    Effect.gen(function*() {
      const directory = recordingDirectory()
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(ListenRelay.layer(self).pipe(Layer.provide([directory.layer, others])), scope)
      assert.deepStrictEqual(directory.told, [`announce ${self.id} 0`])
      yield* TestClock.adjust(ListenRelay.heartbeatMs * 2)
      assert.deepStrictEqual(directory.told, [
        `announce ${self.id} 0`,
        `announce ${self.id} ${ListenRelay.heartbeatMs}`,
        `announce ${self.id} ${ListenRelay.heartbeatMs * 2}`
      ])
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(directory.told.at(-1), `withdraw ${self.id}`)
    }))

  it.effect("accepts a grant for this daemon and this call, once, until it expires", () =>
    Effect.gen(function*() {
      const relay = yield* ListenRelay.ListenRelay
      const key = RelayGrant.keyFrom(cursorKey)
      const token = RelayGrant.sign(key, grant, RelayGrant.ttlMs)
      assert.deepStrictEqual(yield* relay.accept(token, "CA2"), Option.none(), "another call")
      assert.deepStrictEqual(yield* relay.accept(token, "CA1"), Option.some(grant))
      assert.deepStrictEqual(yield* relay.accept(token, "CA1"), Option.none(), "used")

      const forOther = RelayGrant.sign(key, { ...grant, daemonId: "host-2-bbbbbb" }, RelayGrant.ttlMs)
      assert.deepStrictEqual(yield* relay.accept(forOther, "CA1"), Option.none(), "another daemon's")
      const late = RelayGrant.sign(key, { ...grant, channel: "remote" }, RelayGrant.ttlMs)
      yield* TestClock.adjust(RelayGrant.ttlMs)
      assert.deepStrictEqual(yield* relay.accept(late, "CA1"), Option.none(), "expired")
      assert.deepStrictEqual(yield* relay.accept("garbage", "CA1"), Option.none())
    }).pipe(Effect.provide(ListenRelay.layer(self).pipe(Layer.provide([recordingDirectory().layer, others])))))

  it.effect("a relay to a daemon that cannot be reached ends as lost, having passed nothing on", () =>
    Effect.gen(function*() {
      const relay = yield* ListenRelay.ListenRelay
      const sent: Array<string> = []
      const end = yield* relay.relay("http://127.0.0.1:1", grant, (frame) => Effect.sync(() => void sent.push(frame)))
      assert.strictEqual(end, "lost")
      assert.deepStrictEqual(sent, [])
    }).pipe(Effect.provide(ListenRelay.layer(self).pipe(Layer.provide([recordingDirectory().layer, others])))))
})
