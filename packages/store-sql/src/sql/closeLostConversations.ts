/**
 * Closes the conversations of calls whose dialer is gone, with `bot-failure`: the recovery of
 * an expired lease that carried a call (ContactState.recover, outcome `lost`) and the delete of
 * a contact whose lease expired mid-call. `ended_at` is the caller's `now`; the answer,
 * recordings and `duration_sec` keep what was recorded of the call (sql/lostCallEnds). Only
 * open conversations change, so a call its dialer ended meanwhile keeps what it wrote. Each
 * conversation closed here gets its `call.ended` webhook event, written in the caller's
 * transaction (sql/enqueueWebhookEvents: a second statement, only when some conversation was
 * closed).
 *
 * Locking: row locks on the conversations (a primary-key lookup per id, batched through
 * `ANY`) and on their recordings' rows; the caller holds the contacts' row locks, so nobody
 * else ends these calls at once.
 */
import type { PgClient } from "@effect/sql-pg"
import type { FinalizeLost } from "@voice-agent/core/ports/RecordingStore"
import { callEnded } from "@voice-agent/core/Webhook"
import { Effect, Schema } from "effect"
import { ConversationRow } from "../SqlConversationRepository.ts"
import { enqueueWebhookEvents } from "./enqueueWebhookEvents.ts"
import { closeLostStatement, lostCallEnds } from "./lostCallEnds.ts"
import type { LostCallEnd } from "./lostCallEnds.ts"

/**
 * @category constructors
 */
export const closeLostConversations = (sql: PgClient.PgClient) => {
  const ends = lostCallEnds(sql)
  const decodeRows = Schema.decodeUnknownEffect(Schema.Array(ConversationRow))
  const close = (ended: ReadonlyArray<LostCallEnd>, now: Date) =>
    Effect.flatMap(closeLostStatement(sql, ended, now), decodeRows)
  const enqueue = enqueueWebhookEvents(sql)
  return (input: {
    readonly conversationIds: ReadonlyArray<string>
    readonly now: Date
    readonly finalizeRecordings?: FinalizeLost | undefined
  }) =>
    Effect.gen(function*() {
      const ended = yield* ends(input)
      if (ended.length === 0) return
      const closed = yield* close(ended, input.now)
      yield* enqueue(closed.map(callEnded), input.now)
    })
}
