/**
 * When a call has ended, as any daemon sharing the database can tell: what a live listener of
 * a call that is not (or not yet) streaming to this process waits for (docs/LISTEN.md).
 *
 * Two sources, whichever comes first:
 * - the call's `Ended` on `CallEvents`: the carrier's report of the end (busy, no answer,
 *   failure, hang-up), recorded once and announced to every daemon (on PostgreSQL through its
 *   `LISTEN`, in process on the embedded database), whichever daemon's dialer placed the call
 *   and wherever the report landed. Already recorded, it is read back at once.
 * - the conversation record's end, read every `recheckMs`: for the ends no carrier reports (a
 *   call the carrier refused, one recorded as ended after a time-out, a dead daemon's call
 *   recovered by another). A bounded cost: one look-up by the unique `call_id` per listener
 *   every few seconds, only while the call has no media session in this process.
 *
 * A record that cannot be read (the database briefly away) counts as "not ended yet".
 *
 * @since 0.1.0
 */
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect, Exit, Option, Stream } from "effect"

/**
 * How often the record is read back.
 *
 * @category constructors
 */
export const recheckMs = 2_000

/**
 * Completes once the organization's call `callId` has ended (or no longer exists).
 *
 * @category constructors
 */
export const whenEnded = (
  organizationId: string,
  callId: string
): Effect.Effect<void, never, CallEvents | ConversationRepository> =>
  Effect.gen(function*() {
    const events = yield* CallEvents
    const conversations = yield* ConversationRepository
    // A subscription that fails (the database away while it reads) leaves the end to the record.
    const reported = Effect.scoped(
      Effect.flatMap(events.subscribe(callId), (stream) =>
        stream.pipe(Stream.filter((event) => event._tag === "Ended"), Stream.runHead))
    ).pipe(
      Effect.exit,
      Effect.flatMap((exit) =>
        Exit.isSuccess(exit) ? Effect.void : Effect.never
      )
    )
    const isRecordedEnded = conversations.findByCallId(organizationId, callId).pipe(
      Effect.exit,
      Effect.map((exit) =>
        Exit.isSuccess(exit) && Option.match(exit.value, { onNone: () => true, onSome: (c) => c.endedAt !== null })
      )
    )
    const recorded = Effect.gen(function*() {
      while (true) {
        yield* Effect.sleep(recheckMs)
        if (yield* isRecordedEnded) return
      }
    })
    yield* Effect.raceFirst(reported, recorded)
  })
