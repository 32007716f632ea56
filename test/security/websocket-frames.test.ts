/**
 * WebSocket frames are bounded before anything is authenticated (SECURITY.md): a frame over
 * 1 MiB closes the socket with 1009 (message too big) on the daemon's sockets, whatever its
 * path, while a frame of normal size is read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import WebSocket from "ws"
import * as Daemon from "../support/Daemon.ts"

/** Sends `bytes` of text in one frame; answers the close code, or "open" if the socket stayed up for 1 s. */
const sendFrame = (url: string, bytes: number) =>
  Effect.promise(() =>
    new Promise<number | "open">((resolve, reject) => {
      const socket = new WebSocket(url, { headers: { authorization: "Bearer not-a-key" } })
      const timer = setTimeout(() => {
        socket.terminate()
        resolve("open")
      }, 1_000)
      socket.on("open", () => socket.send("x".repeat(bytes)))
      socket.on("close", (code) => {
        clearTimeout(timer)
        resolve(code)
      })
      socket.on("error", (error) => {
        clearTimeout(timer)
        reject(error)
      })
    })
  )

describe("WebSocket frames", () => {
  it.live("a frame over 1 MiB is refused with 1009 before any key or token is checked", () =>
    Effect.gen(function*() {
      const { daemon } = yield* Daemon.serveWithOrganization("frames", "+12025550100")
      const ws = daemon.url.replace(/^http/, "ws")
      for (const path of ["/v2/listen-inbound?phone_number=%2B12025550100", "/carrier/twilio/media"]) {
        assert.strictEqual(yield* sendFrame(`${ws}${path}`, 2 * 1024 * 1024), 1009, path)
      }
    }), { timeout: 60_000 })
})
