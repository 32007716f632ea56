/**
 * Port for the conversational agent that runs one answered call. Nothing implements it yet (the
 * media issue builds the first); a scripted agent, a remote worker over WebSocket or a
 * speech-to-speech model will plug in here.
 *
 * Audio frames are 16-bit PCM at 8 kHz, 20 ms (160 samples) per frame, plain `Int16Array`s.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Stream } from "effect"
import type { ContactData } from "../Contact.ts"
import type { Speaker } from "../Conversation.ts"

/**
 * How an answered call ended from the agent's side.
 *
 * @category models
 */
export type AgentOutcome = "completed" | "cut-short" | "voicemail" | "transfer" | "failure"

/**
 * What the media session hands the agent for one call.
 *
 * @category models
 */
export interface AgentSession {
  readonly callId: string
  readonly direction: "inbound" | "outbound"
  /** The contact's `data`, merged into the agent's context. */
  readonly context: ContactData
  /** The remote party's audio; ends when the remote side hangs up. */
  readonly remoteAudio: Stream.Stream<Int16Array>
  readonly sendAudio: (frame: Int16Array) => Effect.Effect<void>
  /** Records a turn; `offsetMs` counts from the moment the call was answered. */
  readonly emitTurn: (
    turn: { readonly speaker: Speaker; readonly text: string; readonly offsetMs: number }
  ) => Effect.Effect<void>
}

/**
 * @category services
 */
export class Agent extends Context.Service<Agent, {
  readonly run: (session: AgentSession) => Effect.Effect<AgentOutcome>
}>()("@voice-agent/core/ports/Agent") {}
