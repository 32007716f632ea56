/**
 * Port to a speech-to-speech model (the OpenAI Realtime API, one adapter): the model hears the
 * person, decides and speaks itself, so it takes over the whole conversation of a call. The
 * conversation runtime gives it what the pipeline's prompt would hold (instructions built from
 * the persona, the task and its variables; the voice; the tools) and carries out its tool
 * calls (record a field, complete the task, transfer, end the call), exactly as for a chat
 * model; the adapter moves the audio (μ-law passed through untouched when the call is μ-law),
 * plays the model's speech with `say`, interrupts it when the person speaks over it, reports
 * both sides' transcripts as turns, and each reply's turn latency (`emitLatency`).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type { AgentCall, AgentEnd, AudioEncoding } from "./Agent.ts"
import type { ToolCall, ToolDefinition } from "./ChatModel.ts"
import type { SpeechError } from "./SpeechToText.ts"

/**
 * What a tool call did: its output for the model, whether it was `refused` (not carried out:
 * the model is asked to put it right at once), and whether the call ends once the speech
 * already queued has played (`end`). `afterSpeech`: the call is carried out only once the
 * speech already received has played (a transfer, its message first), and what it answers
 * stands for this result.
 *
 * @category models
 */
export interface ToolResult {
  readonly output: string
  readonly refused?: boolean | undefined
  readonly end?: AgentEnd | undefined
  readonly afterSpeech?: Effect.Effect<ToolResult> | undefined
}

/**
 * One call's session with the model.
 *
 * @category models
 */
export interface SpeechSession {
  readonly instructions: string
  readonly voice?: string | undefined
  /** BCP 47 tag or a language name; absent: the model's default. */
  readonly language?: string | undefined
  readonly tools: ReadonlyArray<ToolDefinition>
  /** Carries out a tool call the model made. */
  readonly onToolCall: (call: ToolCall) => Effect.Effect<ToolResult>
  /** What the model says first, before the person speaks (a greeting); absent: it waits. */
  readonly opening?: string | undefined
}

/**
 * How the session ended: a tool call ended it, or the person hung up.
 *
 * @category models
 */
export type SessionEnd =
  | { readonly _tag: "Ended"; readonly end: AgentEnd }
  | { readonly _tag: "HungUp" }

/**
 * @category services
 */
export class SpeechToSpeech extends Context.Service<SpeechToSpeech, {
  /** The encoding the model takes and gives (`mulaw` for G.711 pass-through). */
  readonly encoding: AudioEncoding
  /** Holds the call's conversation until a tool call ends it or the person hangs up. */
  readonly converse: (call: AgentCall, session: SpeechSession) => Effect.Effect<SessionEnd, SpeechError>
}>()("@voice-agent/core/ports/SpeechToSpeech") {}
