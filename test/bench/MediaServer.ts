/**
 * The server side of the media benchmark, shared by its two modes (the engine in the bench's own
 * process, or in `--workers W` cluster workers, `media-worker.ts`): what a call's media session
 * needs, over memory and recordings in `dir`, with the daemon's scripted agent (or one that only
 * drains its input) whose reads of the person's frames are reported to `onFrame`.
 */
import { Agent } from "@voice-agent/core/ports/Agent"
import type { AgentCall, AgentEnd, CallInput } from "@voice-agent/core/ports/Agent"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MemoryConversations from "@voice-agent/engine/testing/MemoryConversations"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import { Effect, Layer, Stream } from "effect"
import * as Media from "voice-agent/Media"

export interface Watch {
  /** The agent read a frame of the call. */
  readonly onFrame: (callId: string, timestampMs: number) => void
  /** The agent read an input item of any kind. */
  readonly onInput: () => void
}

/** An agent that reads its input to the end and says nothing. */
const drain = (call: AgentCall): Effect.Effect<AgentEnd> =>
  Effect.as(Stream.runDrain(call.input), { outcome: "completed", endedBy: "remote" })

/** The daemon's agent (or `drain`), its input watched: each audio frame when the agent reads it. */
const watchedAgent = (watch: Watch, drainOnly: boolean) =>
  Layer.effect(
    Agent,
    Effect.gen(function*() {
      const inner = yield* Agent
      return Agent.of({
        encoding: inner.encoding,
        run: (call) =>
          (drainOnly ? drain : inner.run)({
            ...call,
            input: Stream.map(call.input, (item: CallInput) => {
              watch.onInput()
              if (item._tag === "Audio") watch.onFrame(call.context.callId, item.frame.timestampMs)
              return item
            }),
            // an agent that takes the audio reads each frame when its sink is called
            takeAudio: call.takeAudio === undefined ? undefined : (sink) =>
              call.takeAudio!((frame) => {
                watch.onInput()
                watch.onFrame(call.context.callId, frame.timestampMs)
                sink(frame)
              })
          })
      })
    })
  ).pipe(Layer.provide(Media.scripted))

/** A conversation of its own for each call (a distinct id, so that its turns are its own). */
const conversation = (callId: string) =>
  MemoryConversations.outbound(callId, {
    id: `00000000-0000-4000-8000-${callId.replace(/\D/g, "").padStart(12, "0").slice(-12)}`,
    toNumber: "+13035550000",
    startedAt: new Date()
  })

/**
 * A media session's services over memory (any call id is a conversation, answered by the calls'
 * `Answered` published to `CallEvents`), and the transcript turns stored.
 */
export const services = (dir: string, watch: Watch, drainOnly: boolean) => {
  const world = MemoryDialer.makeWorld()
  const store = MemoryConversations.make((id) => ({ conversation: conversation(id), data: { first_name: "Ann" } }))
  const layer = Layer.mergeAll(
    FileRecordingStore.layer(dir),
    Layer.effect(CallEvents, MemoryDialer.callEvents(world)),
    Layer.succeed(ConversationRepository, store.repository),
    Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets),
    watchedAgent(watch, drainOnly)
  )
  return { layer, turns: () => store.turns.length }
}
