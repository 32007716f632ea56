/**
 * Riding out a database that is out of reach for a while (restarted, failed over, a network
 * blip) on the paths of a call in progress, where a write that fails loses the call's truth:
 *
 * - `CallEvents.publish`: a carrier's Ringing, Answered and Ended, and the agent's verdict. Lost,
 *   the dialer holding the call never hears that it ended and keeps its contact "being dialed"
 *   for up to the longest call (an hour). A repeated event changes nothing, so trying again is
 *   always safe.
 * - `ConversationRepository.appendTurns`, `recordField` and `recordLatency`: the transcript, turn
 *   by turn, the values the agent collects and each reply's latency, as the call goes (a field
 *   recorded again replaces itself).
 * - `ConversationRepository.callContext`: what a call's media stream (and the simulated person,
 *   and a carrier's webhook) reads when it starts; a read.
 * - `ConversationRepository.claimStream`: a media stream claiming its call; the same claim made
 *   again holds, so trying again after a lost answer is safe.
 * - `AgentRepository.forCall`: the agent definition a call's media session runs, read when its
 *   stream starts; a read. Failing, the session failed and the call ended `bot-failure` although
 *   nothing was wrong with it (seen when the database went the moment a stream started).
 *
 * Each is tried again, every 200 ms doubling up to 2 s, for as long as the failure says the
 * database cannot be reached (`Database.isUnavailable`), with one warning when the wait starts
 * and one line when it ends; any other failure passes through at once, and so does an
 * interruption (a call hung up, a shutdown). Nothing else is wrapped: the HTTP API keeps failing
 * fast while the database is down, and the dial loop and the call attempts have their own
 * retries (engine DialLoop, CallAttempt).
 *
 * @since 0.1.0
 */
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import * as Database from "@voice-agent/store-sql/Database"
import { Context, Effect, Layer } from "effect"

/** Between tries while the database is out of reach: 200 ms, doubling up to 2 s. */
const delayMs = (tries: number): number => Math.min(2_000, 200 * 2 ** Math.min(tries, 4))

/**
 * `effect`, tried again for as long as it fails because the database cannot be reached.
 *
 * @category constructors
 */
export const waitingForDatabase = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const loop = (tries: number): Effect.Effect<A, E, R> =>
    effect.pipe(
      Effect.catchCause((cause) =>
        Database.isUnavailableCause(cause)
          ? Effect.gen(function*() {
            if (tries === 0) yield* Effect.logWarning(`${what}: the database is out of reach; waiting for it`)
            yield* Effect.sleep(delayMs(tries))
            const result = yield* loop(tries + 1)
            if (tries === 0) yield* Effect.logInfo(`${what}: done, the database is back`)
            return result
          })
          : Effect.failCause(cause)
      )
    )
  return loop(0)
}

/**
 * Call events and the conversation writes of a call in progress, waiting for the database
 * (over the storage's own).
 *
 * @category layers
 */
export const layer: Layer.Layer<
  AgentRepository | CallEvents | ConversationRepository,
  never,
  AgentRepository | CallEvents | ConversationRepository
> = Layer
  .effectContext(Effect.gen(function*() {
    const agents = yield* AgentRepository
    const events = yield* CallEvents
    const conversations = yield* ConversationRepository
    return Context.make(
      CallEvents,
      CallEvents.of({
        ...events,
        publish: (callId, event) =>
          waitingForDatabase(`Call ${callId}: event ${event._tag}`, events.publish(callId, event))
      })
    ).pipe(Context.add(
      ConversationRepository,
      ConversationRepository.of({
        ...conversations,
        appendTurns: (conversationId, turns) =>
          waitingForDatabase(
            `Conversation ${conversationId}: transcript`,
            conversations.appendTurns(conversationId, turns)
          ),
        recordField: (conversationId, key, value) =>
          waitingForDatabase(
            `Conversation ${conversationId}: field ${key}`,
            conversations.recordField(conversationId, key, value)
          ),
        callContext: (callId) => waitingForDatabase(`Call ${callId}: its record`, conversations.callContext(callId)),
        claimStream: (callId, streamId) =>
          waitingForDatabase(`Call ${callId}: its stream's claim`, conversations.claimStream(callId, streamId)),
        recordLatency: (conversationId, turn) =>
          waitingForDatabase(
            `Conversation ${conversationId}: turn latency`,
            conversations.recordLatency(conversationId, turn)
          )
      })
    )).pipe(Context.add(
      AgentRepository,
      AgentRepository.of({
        ...agents,
        forCall: (callId) => waitingForDatabase(`Call ${callId}: its agent`, agents.forCall(callId))
      })
    ))
  }))
