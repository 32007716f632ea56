/**
 * Port for the agent that holds the conversation of one answered call. The engine's media
 * session runs it: it hands the agent what the call brings in (the person's audio with its
 * timestamps, DTMF, the person starting and stopping to speak, a barge-in) and gives it the
 * means to act (speak, interrupt its own speech, send DTMF, record transcript turns, transfer,
 * end the call). The agent answers how the call ended, in ContactState's vocabulary, so the
 * contact's next state and the termination reason follow from it with no translation.
 *
 * Audio crosses the port as frames of 8 kHz mono audio, 20 ms each by convention (any length is
 * accepted), with timestamps in milliseconds from the answer. An agent chooses its encoding:
 * `pcm16` (16-bit signed samples, `Int16Array`) or `mulaw` (G.711 μ-law bytes, the carrier's
 * own), so that a model speaking μ-law natively gets and returns the carrier's bytes with no
 * transcoding. Recordings and transcripts are the session's: an agent only reports turns.
 *
 * How the agents to come map onto it:
 * - A speech-to-speech model (OpenAI Realtime with `g711_ulaw`, for one): asks for `mulaw`,
 *   forwards each `Audio` input to the model, plays each response's audio with `say`, calls
 *   `interrupt` when the model reports the person speaking over it (or on `BargeIn`), reports the
 *   model's transcripts as turns, and returns when a tool call ends the call.
 * - A pipeline of speech-to-text, a language model and text-to-speech (the agents package):
 *   asks for `pcm16`, feeds `Audio` to a `SpeechToText` stream, takes each final transcript as a
 *   HUMAN turn, asks the model, speaks its reply sentence by sentence through `TextToSpeech` and
 *   `say`, and interrupts on `BargeIn`.
 * - An SDK agent worker over WebSocket (the reference SDK's protocol): relays the inputs as
 *   the protocol's events and the worker's commands as these calls.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Stream } from "effect"
import type { ContactData } from "../Contact.ts"
import type { CallOutcome } from "../ContactState.ts"
import type { Direction, Speaker } from "../Conversation.ts"
import type { TurnLatencyRecord } from "../TurnLatency.ts"

/**
 * How an agent ends an answered call: the outcomes of ContactState that an answered call can
 * have. `completed` (the conversation reached its end), `cut-short` (the person left early),
 * `voicemail` (an answering machine), `transfer` (handed on), `agent-failure` (the agent broke).
 *
 * @category models
 */
export type AgentOutcome = Extract<CallOutcome, "completed" | "cut-short" | "voicemail" | "transfer" | "agent-failure">

/**
 * The agent's verdict: the outcome, who hung up (the termination reason needs it: the person
 * is `user-hangup`, the agent `bot-hangup`), and for a transfer where to.
 *
 * @category models
 */
export interface AgentEnd {
  readonly outcome: AgentOutcome
  readonly endedBy: "remote" | "agent"
  readonly transferTo?: string | undefined
}

/**
 * @category models
 */
export type AudioEncoding = "pcm16" | "mulaw"

/**
 * How an agent's `transfer` went: the carrier moved the call (the agent then ends it with the
 * outcome `transfer`: the call is no longer ours), or it refused, with its reason, and the call
 * goes on with the agent.
 *
 * @category models
 */
export type TransferResult =
  | { readonly _tag: "Transferred" }
  | { readonly _tag: "Refused"; readonly reason: string }

/**
 * A frame of 8 kHz mono audio at `timestampMs` (from the answer) in the agent's encoding.
 *
 * @category models
 */
export type AudioFrame =
  | { readonly encoding: "pcm16"; readonly samples: Int16Array; readonly timestampMs: number }
  | { readonly encoding: "mulaw"; readonly bytes: Uint8Array; readonly timestampMs: number }

/**
 * Where an agent that processes audio in process takes the person's frames (`AgentCall.takeAudio`):
 * called synchronously on the session's read loop, frame by frame, in order. It must return at
 * once (no waiting, no I/O) and not throw; a sink that throws is dropped (logged), and the
 * frame it threw on and those after it come as `Audio` inputs again.
 * @category models
 */
export type AudioSink = (frame: AudioFrame) => void

/**
 * What the call brings in, in order. The stream ends when the person hangs up.
 * `SpeechStarted`/`SpeechStopped` come from the session's voice activity detection on the
 * person's audio; `BargeIn` when the person starts speaking while the agent's audio is playing
 * (the agent decides whether to `interrupt`).
 *
 * @category models
 */
export type CallInput =
  | { readonly _tag: "Audio"; readonly frame: AudioFrame }
  | { readonly _tag: "Dtmf"; readonly digit: string; readonly timestampMs: number }
  | { readonly _tag: "SpeechStarted"; readonly timestampMs: number }
  | { readonly _tag: "SpeechStopped"; readonly timestampMs: number }
  | { readonly _tag: "BargeIn"; readonly timestampMs: number }

/**
 * What the agent knows of the call when it starts.
 *
 * @category models
 */
export interface CallContext {
  readonly callId: string
  readonly conversationId: string
  readonly direction: Direction
  /** Our number for an outbound call, the person's for an inbound one. */
  readonly from: string
  readonly to: string
  readonly campaignId: string | null
  readonly contactId: string | null
  /** The contact's `data` (empty for inbound calls). */
  readonly data: ContactData
  /**
   * Who answered: the carrier's answering-machine detection, or the engine's from the call's
   * first seconds of audio when the carrier cannot tell (`CallEvents.AnsweredBy` `unknown`).
   */
  readonly answeredBy: "human" | "machine"
}

/**
 * How a `say` ended: all of it played, or interrupted (by `interrupt` or the end of the call)
 * after `playedMs` of it was heard.
 *
 * @category models
 */
export type Playback =
  | { readonly _tag: "Played"; readonly startMs: number; readonly endMs: number }
  | { readonly _tag: "Interrupted"; readonly startMs: number; readonly playedMs: number }

/**
 * One answered call as the agent sees it.
 *
 * @category models
 */
export interface AgentCall {
  readonly context: CallContext
  readonly input: Stream.Stream<CallInput>
  /** Milliseconds since the answer (the clock of every timestamp and turn offset). */
  readonly elapsedMs: Effect.Effect<number>
  /**
   * Plays `audio` to the person after what is already queued; completes when it has been
   * played or was interrupted. Audio is sent as fast as it comes and paced by the carrier.
   */
  readonly say: (audio: Stream.Stream<AudioFrame>) => Effect.Effect<Playback>
  /** Drops every queued audio not yet played (the person hears it stop at once). */
  readonly interrupt: Effect.Effect<void>
  readonly sendDtmf: (digits: string) => Effect.Effect<void>
  /**
   * Asks the carrier to move the call to `to` (E.164). Say the transfer message first and wait
   * for it to play: once the carrier has the call, its media stream stops. `Transferred`: return
   * `{outcome: "transfer", endedBy: "agent", transferTo: to}` (the engine does not hang the call
   * up); `Refused`: the call goes on as before.
   */
  readonly transfer: (to: string) => Effect.Effect<TransferResult>
  /** Records a transcript turn; `offsetMs` counts from the answer. */
  readonly emitTurn: (
    turn: { readonly speaker: Speaker; readonly text: string; readonly offsetMs: number }
  ) => Effect.Effect<void>
  /**
   * Records one reply's turn latency (not the greeting's): the end of the speech it answers
   * and the start of its audio, both in ms from the answer as `elapsedMs` and `say` count, and
   * the steps measured (served by `GET /v1/conversations/{call_id}/latency`).
   */
  readonly emitLatency: (turn: TurnLatencyRecord) => Effect.Effect<void>
  /**
   * Completes as soon as the call is over for the person (they hung up, or the call ended),
   * ahead of input still queued: an agent behind on its input (a slow recognizer) learns it
   * without reading to the end. The input ends then too, after what it still holds; an agent
   * that keeps up with its input may take that end as the hang-up. Absent: the end of `input`
   * is the only signal.
   */
  readonly hungUp?: Effect.Effect<void> | undefined
  /**
   * Takes the person's audio out of `input`: from then on each frame goes to `sink` as the
   * session reads it, synchronously, instead of coming as an `Audio` input (the other inputs
   * stay in `input`). Frames already queued in `input` and not yet read go to `sink` first, so
   * the sink sees every frame not read from `input`, once, in order. For agents whose audio
   * work runs in process (a local recognizer): each frame skips the queue, the stream and the
   * wake-ups between them. Absent: audio comes through `input` only.
   */
  readonly takeAudio?: ((sink: AudioSink) => Effect.Effect<void>) | undefined
}

/**
 * @category services
 */
export class Agent extends Context.Service<Agent, {
  /** The audio encoding the agent wants in and gives out. */
  readonly encoding: AudioEncoding
  /**
   * The encoding for one call, when it depends on the call (an agent that runs a
   * speech-to-speech model for some calls and a pipeline for others); absent: `encoding`.
   */
  readonly encodingFor?: ((context: CallContext) => Effect.Effect<AudioEncoding>) | undefined
  /**
   * Holds the conversation until the call ends. Returning ends the call (when the person has
   * not already hung up); a defect or failure is recorded as `agent-failure`.
   */
  readonly run: (call: AgentCall) => Effect.Effect<AgentEnd>
}>()("@voice-agent/core/ports/Agent") {}
