/**
 * A live listener, as a client writes one (docs/LISTEN.md): open the listen socket of a call
 * and keep every frame until the server closes it; find a call as soon as the API lists it;
 * check that what was heard is the call's audio from its answer, then `stop`.
 *
 * @since 0.1.0
 */
import { assert } from "@effect/vitest"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Effect } from "effect"
import WebSocket from "ws"
import * as Daemon from "./Daemon.ts"

/**
 * @category models
 */
export interface Frame {
  readonly event: string
  readonly media?: { readonly timestamp: string; readonly payload: string }
}

/**
 * What a listener got: refused before the upgrade, or every frame until the server closed.
 *
 * @category models
 */
export type Heard =
  | { readonly _tag: "Refused"; readonly status: number }
  | { readonly _tag: "Heard"; readonly frames: ReadonlyArray<Frame> }

/**
 * Opens a listen socket and keeps every text frame until the server closes it; `onOpen` runs
 * once the upgrade is accepted, `onFrame` on each frame; the close code is answered beside.
 *
 * @category constructors
 */
export const listenWithClose = (
  url: string,
  key?: string,
  onFrame: (frame: Frame) => void = () => {}
) =>
  Effect.callback<{ readonly heard: Heard; readonly code: number }, Error>((resume) => {
    const frames: Array<Frame> = []
    const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` }
    const socket = new WebSocket(url.replace(/^http/, "ws"), { headers })
    socket.on("message", (data) => {
      const frame = JSON.parse(new TextDecoder().decode(data as Buffer)) as Frame
      frames.push(frame)
      onFrame(frame)
    })
    socket.on("unexpected-response", (_request, response) =>
      resume(Effect.succeed({ heard: { _tag: "Refused", status: response.statusCode ?? 0 }, code: 0 })))
    socket.on("close", (code) =>
      resume(Effect.succeed({ heard: { _tag: "Heard", frames }, code })))
    socket.on("error", (error) =>
      resume(Effect.fail(error)))
    return Effect.sync(() => socket.terminate())
  })

/**
 * Opens a listen socket and keeps every text frame until the server closes it.
 *
 * @category constructors
 */
export const listen = (url: string, key?: string): Effect.Effect<Heard, Error> =>
  Effect.map(listenWithClose(url, key), ({ heard }) => heard)

/**
 * @category models
 */
export interface Listed {
  readonly call_id: string
  readonly to_number: string
  readonly termination_reason: string | null
  readonly duration_sec: number | null
}

/**
 * The call to `toNumber`, as soon as `GET /v1/conversations` lists it (asked every 10 ms).
 *
 * @category constructors
 */
export const firstListed = (url: string, key: string, toNumber: string) =>
  Effect.gen(function*() {
    while (true) {
      const listed = (yield* Daemon.request(`${url}/v1/conversations?limit=100`, Daemon.bearer(key))).body as {
        conversations: Array<Listed>
      }
      const call = listed.conversations.find((c) => c.to_number === toNumber)
      if (call !== undefined) return call
      yield* Effect.sleep("10 millis")
    }
  })

/**
 * The listen URL of a call, with `query`.
 *
 * @category constructors
 */
export const listenUrl = (url: string, callId: string, query: string) =>
  `${url}/v1/conversations/${callId}/listen?${query}`

/**
 * Asserts audio of the call: 20 ms μ-law frames with increasing timestamps, some loud, then
 * stop; from the answer (timestamp 0) unless `fromAnswer` is false.
 *
 * @category constructors
 */
export const assertAudio = (heard: Heard, label: string, options: { readonly fromAnswer: boolean }) => {
  assert.strictEqual(heard._tag, "Heard", `${label}: expected an upgrade, got ${JSON.stringify(heard)}`)
  if (heard._tag !== "Heard") return
  const { frames } = heard
  const got = `${frames.length} frames, the first ${JSON.stringify(frames.slice(0, 2)).slice(0, 400)}`
  assert.isAbove(frames.length, 100, `${label}: more than two seconds of frames (${got})`)
  assert.deepStrictEqual(frames.at(-1), { event: "stop" }, label)
  const media = frames.slice(0, -1)
  if (options.fromAnswer) {
    assert.strictEqual(media[0]!.media!.timestamp, "0", `${label}: the frames start with the answer`)
  }
  let previous = -1
  let loud = 0
  for (const frame of media) {
    assert.strictEqual(frame.event, "media", label)
    const timestamp = Number(frame.media!.timestamp)
    assert.isAbove(timestamp, previous, `${label}: timestamps increase`)
    previous = timestamp
    const bytes = new Uint8Array(Buffer.from(frame.media!.payload, "base64"))
    assert.isTrue(bytes.length > 0 && bytes.length <= 160, `${label}: a frame of at most 20 ms`)
    if (MuLaw.decode(bytes).some((sample) => Math.abs(sample) > 1000)) loud++
  }
  assert.isAbove(loud, 10, `${label}: the call's speech, not silence`)
}

/**
 * Asserts the call's audio from its answer: 20 ms μ-law frames from timestamp 0, some loud, then stop.
 *
 * @category constructors
 */
export const assertAudioFromAnswer = (heard: Heard, label: string) => assertAudio(heard, label, { fromAnswer: true })
