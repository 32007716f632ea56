/**
 * The calling side of the media benchmark, shared by its two modes (carriers in the server's
 * process, or in a child process): `lines` lines, their starts spread over `rampMs` (the first
 * second by default), each placing a call through `carrier` (a conversation number, so the
 * scripted agent talks), waiting for it to end and placing the next, until `seconds` have
 * passed; calls still up then are hung up. Tokens are signed with the bench's fixed installation key.
 */
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import { Duration, Effect, Stream } from "effect"

export const callLines = (options: {
  readonly carrier: Carrier["Service"]
  readonly events: CallEvents["Service"]
  readonly mediaUrl: string
  readonly lines: number
  /** The number of the first line (when the lines are split between processes); 0 by default. */
  readonly firstLine?: number
  readonly seconds: number
  /** Over how long the lines' first calls start, in ms (`media.ts --ramp`); 1000 by default. */
  readonly rampMs?: number
  /** Told of each call before it is placed. */
  readonly onPlace: (callId: string, mediaToken: string) => void
}): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { carrier, events, lines, mediaUrl } = options
    const key = MediaToken.keyFrom(yield* MemoryDialer.serverSecrets.cursorKey)
    const deadline = Date.now() + 1_000 + options.seconds * 1_000
    const ended = (callId: string) =>
      Effect.scoped(Effect.flatMap(
        events.subscribe(callId),
        (stream) => Stream.runHead(Stream.filter(stream, (event) => event._tag === "Ended"))
      ))
    const line = (n: number) =>
      Effect.gen(function*() {
        yield* Effect.sleep(Duration.millis(Math.floor((n * (options.rampMs ?? 1_000)) / lines)))
        for (let k = 0; Date.now() < deadline; k++) {
          const callId = `bench-${n + (options.firstLine ?? 0)}-${k}`
          const mediaToken = MediaToken.sign(key, callId, Date.now() + 3_600_000)
          options.onPlace(callId, mediaToken)
          yield* carrier.placeCall({
            from: "+12025550100",
            to: `+1303${String(2_000_000 + n + (options.firstLine ?? 0))}`,
            callId,
            mediaUrl,
            mediaToken
          }).pipe(Effect.orDie)
          const over = yield* Effect.raceFirst(
            Effect.as(ended(callId), false),
            Effect.as(Effect.sleep(Duration.millis(Math.max(0, deadline - Date.now()))), true)
          )
          if (over) yield* carrier.hangUp(callId).pipe(Effect.orDie)
        }
      })
    yield* Effect.forEach(Array.from({ length: lines }, (_, n) => n), line, { concurrency: "unbounded", discard: true })
  })

/**
 * A number in [0, 1) for call `k` of line `line`, the same in every run and process (a hash of
 * the two, not a generator's sequence, so that calls placed in another order get the same one):
 * how far along its spread a call's varying part lies.
 */
export const spread = (line: number, k: number): number => {
  let h = Math.imul(line ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(k + 1, 0xc2b2ae35)
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d)
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b)
  return ((h ^ (h >>> 16)) >>> 0) / 4_294_967_296
}
