import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as Dgram from "node:dgram"
import * as RtpPorts from "./RtpPorts.ts"

/** A range of `pairs` even/odd pairs somewhere above 20000, different for each test. */
const range = (pairs: number) => {
  const low = 20_000 + 2 * Math.floor(Math.random() * 15_000)
  return { low, high: low + 2 * pairs - 1 }
}

/** Binds a plain socket on 127.0.0.1 (to take a port away); `undefined` when it is taken. */
const hold = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<Dgram.Socket | undefined>((resume) => {
      const socket = Dgram.createSocket("udp4")
      socket.once("error", () => {
        socket.close()
        resume(Effect.succeed(undefined))
      })
      socket.bind(port, "127.0.0.1", () => resume(Effect.succeed(socket)))
    }),
    (socket) => Effect.sync(() => socket?.close())
  )

describe("RtpPorts", () => {
  it("lists the even ports with an odd neighbour in range, from a start, wrapping", () => {
    assert.deepStrictEqual(RtpPorts.candidates(10000, 10009, 0), [10000, 10002, 10004, 10006, 10008])
    assert.deepStrictEqual(RtpPorts.candidates(10001, 10006, 3), [10004, 10002])
    assert.deepStrictEqual(RtpPorts.candidates(10000, 10009, 7), [10004, 10006, 10008, 10000, 10002])
    assert.deepStrictEqual(RtpPorts.candidates(10001, 10002, 0), [])
  })

  it.effect("binds an even port for RTP and the next for RTCP", () =>
    Effect.gen(function*() {
      const ports = yield* RtpPorts.allocate("127.0.0.1", range(8))
      assert.strictEqual(ports.port % 2, 0)
      assert.strictEqual(ports.rtp.address().port, ports.port)
      assert.strictEqual(ports.rtcp.address().port, ports.port + 1)
    }))

  it.effect("skips a pair when either of its ports is in use", () =>
    Effect.gen(function*() {
      const { low, high } = range(3)
      // the first pair's RTP port and the second pair's RTCP port are taken: only the third is free
      assert.isDefined(yield* hold(low))
      assert.isDefined(yield* hold(low + 3))
      for (let i = 0; i < 6; i++) {
        const port = yield* Effect.scoped(Effect.map(RtpPorts.allocate("127.0.0.1", { low, high }), (p) => p.port))
        assert.strictEqual(port, low + 4)
      }
    }))

  it.effect("fails, naming the range, when no pair is free", () =>
    Effect.gen(function*() {
      const { low, high } = range(1)
      yield* hold(low + 1)
      const error = yield* Effect.flip(RtpPorts.allocate("127.0.0.1", { low, high }))
      assert.strictEqual(error.message, `No free RTP port pair on 127.0.0.1 in RTP_PORTS ${low}-${high}`)
      // and the RTP port it tried was let go
      assert.isDefined(yield* hold(low))
    }))

  it.effect("frees both ports when the scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const ports = yield* Scope.provide(RtpPorts.allocate("127.0.0.1", range(4)), scope)
      assert.isUndefined(yield* hold(ports.port))
      yield* Scope.close(scope, Exit.void)
      assert.isDefined(yield* hold(ports.port))
      assert.isDefined(yield* hold(ports.port + 1))
    }))
})
