/**
 * The calling side of the media benchmark, shared by its two modes (carriers in the server's
 * process, or in a child process): `lines` lines, their starts spread over the first second,
 * each placing a call through `carrier` (a conversation number, so the scripted agent talks),
 * waiting for it to end and placing the next, until `seconds` have passed; calls still up then
 * are hung up. Tokens are signed with the bench's fixed installation key.
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
        yield* Effect.sleep(Duration.millis(Math.floor((n * 1_000) / lines)))
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
