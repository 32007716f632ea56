/**
 * Live listen (CONTRACT §7) on a real daemon: while a call that never hangs up runs, a WebSocket
 * client on `/v1/conversations/{call_id}/listen` receives μ-law media frames with
 * non-decreasing timestamps, then `stop` when the call ends; before the upgrade, 401 without a
 * valid key, 422 for another channel, 404 for an unknown call and for the call once ended.
 */
import { assert, describe, it } from "@effect/vitest"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Effect, Option } from "effect"
import WebSocket from "ws"
import * as Daemon from "../support/Daemon.ts"

interface Frame {
  readonly event: string
  readonly media?: { readonly timestamp: string; readonly payload: string }
}

/** Every text frame the listener receives until the server closes the socket. */
const listen = (url: string, key: string) =>
  Effect.callback<ReadonlyArray<Frame>, Error>((resume) => {
    const frames: Array<Frame> = []
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } })
    socket.on("message", (data) => frames.push(JSON.parse(new TextDecoder().decode(data as Buffer)) as Frame))
    socket.on("close", () => resume(Effect.succeed(frames)))
    socket.on("error", (error) => resume(Effect.fail(error)))
    return Effect.sync(() => socket.terminate())
  })

describe("live listen, on a daemon", () => {
  it.live(
    "a running call streams μ-law frames then stop; 401, 422 and 404 before the upgrade",
    () =>
      Effect.gen(function*() {
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"])
        const key = Option.getOrThrow(api.apiKey)
        yield* Daemon.campaignWithContacts(api.url, key, "listen", [
          { phone_number: "+12025550191", data: { name: "Ada" } }
        ])
        const started = yield* api.waitFor(/Media stream of call (\S+) started/).pipe(Effect.timeout("30 seconds"))
        const callId = /Media stream of call (\S+) started/.exec(started)![1]!
        const base = `${api.url}/v1/conversations`
        const listenUrl = (id: string, channel: string) => `${base}/${id}/listen?channel=${channel}`

        // Before the upgrade (plain GETs: the checks answer before any upgrade).
        const status = (url: string, init?: RequestInit) =>
          Effect.map(Daemon.request(url, init), (response) => response.status)
        assert.strictEqual(yield* status(listenUrl(callId, "mixed")), 401, "no key")
        assert.strictEqual(yield* status(listenUrl(callId, "mixed"), Daemon.bearer("va_wrong")), 401, "bad key")
        assert.strictEqual(yield* status(listenUrl(callId, "both"), Daemon.bearer(key)), 422, "bad channel")
        assert.strictEqual(yield* status(`${base}/${callId}/listen`, Daemon.bearer(key)), 422, "no channel")
        assert.strictEqual(yield* status(listenUrl("CA-unknown", "mixed"), Daemon.bearer(key)), 404, "unknown call")

        const ws = (channel: string) => listenUrl(callId, channel).replace(/^http/, "ws")
        const [mixed, remote] = yield* Effect.all([listen(ws("mixed"), key), listen(ws("remote"), key)], {
          concurrency: "unbounded"
        }).pipe(Effect.timeout("60 seconds"))
        for (const [channel, frames] of [["mixed", mixed], ["remote", remote]] as const) {
          assert.isAbove(frames.length, 50, `${channel}: more than a second of frames`)
          assert.deepStrictEqual(frames[frames.length - 1], { event: "stop" }, channel)
          const media = frames.slice(0, -1)
          let previous = -1
          let loud = 0
          for (const frame of media) {
            assert.strictEqual(frame.event, "media", channel)
            const timestamp = Number(frame.media!.timestamp)
            assert.isTrue(Number.isInteger(timestamp) && typeof frame.media!.timestamp === "string", channel)
            assert.isAtLeast(timestamp, previous, `${channel}: timestamps non-decreasing`)
            previous = timestamp
            const bytes = new Uint8Array(Buffer.from(frame.media!.payload, "base64"))
            assert.isTrue(bytes.length > 0 && bytes.length <= 160, `${channel}: a frame of at most 20 ms`)
            if (MuLaw.decode(bytes).some((sample) => Math.abs(sample) > 1000)) loud++
          }
          assert.isAbove(loud, 0, `${channel}: some audio is not silence`)
        }

        yield* api.waitFor(/to \+12025550191 ended:/).pipe(Effect.timeout("30 seconds"))
        assert.strictEqual(yield* status(listenUrl(callId, "mixed"), Daemon.bearer(key)), 404, "ended call")
        assert.strictEqual(yield* api.stop("SIGTERM"), 0)
      }),
    { timeout: 120_000 }
  )
})
