/**
 * The conversation runtime: the `Agent` that runs a call's agent definition (persona, task,
 * instructions, language, providers) by driving the pure dialogue (`Dialogue.step`)
 * with the call's events and carrying out its actions over the speech and language ports.
 * A call whose campaign or number has no definition gets the `fallback` agent (the scripted
 * reference agent, in the daemon).
 *
 * Per call, by the definition's providers (`Providers`, by name; absent names take the
 * defaults the runtime was built with):
 * - no `llm`: the deterministic policy, over speech-to-text and text-to-speech;
 * - an `llm` that is a chat model: the language-model policy; each `Generate` streams the model
 *   with the prompt built from the state as it is then, and each sentence is spoken as soon as
 *   it is complete; tool calls go through the same `step` as each arrives. The model says its
 *   next line in the same response as its calls, so a turn is one request; the calls and their
 *   results go back to it for another round (at most `maxModelRounds`) only when a call was
 *   refused or the reply had nothing to say. A new utterance drops a reply still streaming: its
 *   sentences not yet said are never said.
 * - an `llm` that is a speech-to-speech model: the model hears and speaks (in its own encoding,
 *   μ-law passed through untouched); the runtime gives it the same prompt and tools and carries
 *   out its tool calls through the same `step`.
 *
 * Turn-taking: the session's voice activity detects barge-in, and the runtime interrupts the
 * agent's audio at once (the conversation decides what to say again). A final transcript of
 * the speech-to-text is the caller's turn. An answering machine is waited out (greeting and
 * beep) before the conversation starts.
 *
 * Failures: a provider failing (speech-to-text, text-to-speech, the model: an error answer, a
 * timeout, a dropped connection) ends the call at once as `agent-failure` (the conversation's
 * termination reason is `bot-failure`); nothing waits on a provider that went away. An `llm`,
 * `stt` or `tts` name that is not configured is the same failure, logged with the name.
 *
 * Collected fields are stored as they are recorded (`recordField`); a sensitive value is never
 * logged, and the dialogue already keeps it out of the transcript.
 *
 * This module is the runtime's contract and its dispatch; the parts are `runtime/CallPlan` (which
 * way a call runs), `runtime/Pipeline` and `runtime/SpeechToSpeechCall` (running it), and
 * `runtime/CallDialogue` (what they share).
 *
 * @since 0.1.0
 */
import type { FieldValue, Persona, Task } from "@voice-agent/core/AgentTask"
import type { AudioEncoding, CallContext } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import type { Providers } from "@voice-agent/core/ports/Providers"
import type { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import type { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import type { Option, Queue } from "effect"
import { Effect } from "effect"
import type * as DeterministicPolicy from "./dialogue/DeterministicPolicy.ts"
import type * as Dialogue from "./dialogue/Dialogue.ts"
import * as FieldExtraction from "./dialogue/FieldExtraction.ts"
import { agentFailure } from "./runtime/CallDialogue.ts"
import * as CallPlan from "./runtime/CallPlan.ts"
import * as Pipeline from "./runtime/Pipeline.ts"
import * as SpeechToSpeechCall from "./runtime/SpeechToSpeechCall.ts"

/**
 * What the runtime needs of a stored agent definition.
 *
 * @category models
 */
export interface CallDefinition {
  readonly persona: Persona
  readonly task: Task | null
  readonly instructions: string | null
  readonly language: string | null
  readonly llm: string | null
  readonly stt: string | null
  readonly tts: string | null
}

/**
 * @category models
 */
export interface Settings {
  /** How long the caller has to answer once the agent has spoken (default 8000 ms). */
  readonly silenceMs: number
  /** Re-asks of a field the deterministic policy could not understand (default 2). */
  readonly maxReasks: number
  /** Quiet after an answering machine's greeting that means it records (default 1000 ms). */
  readonly machineQuietMs: number
  /** Requests to the model per `Generate`: the first, and a round after refused calls (default 4). */
  readonly maxModelRounds: number
}

/**
 * @category constants
 */
export const defaultSettings: Settings = { silenceMs: 8_000, maxReasks: 2, machineQuietMs: 1_000, maxModelRounds: 4 }

/**
 * What an SDK agent (the reference SDK's protocol) is told of its call.
 *
 * @category models
 */
export type Note =
  | { readonly _tag: "CallerSpeech"; readonly text: string; readonly offsetMs: number }
  | { readonly _tag: "AgentSpeech"; readonly text: string; readonly interrupted: boolean }
  | { readonly _tag: "FieldRecorded"; readonly key: string; readonly value: FieldValue }
  | { readonly _tag: "TaskCompleted"; readonly taskId: string | undefined }
  | { readonly _tag: "Question"; readonly id: string; readonly text: string }
  | { readonly _tag: "ActionRequest"; readonly id: string; readonly text: string }
  | { readonly _tag: "ChoiceQuery"; readonly id: string; readonly key: string; readonly query: string }
  | { readonly _tag: "Escalate" }
  | { readonly _tag: "Dtmf"; readonly digit: string }
  /** The carrier refused the agent's transfer to `to`: the call goes on. */
  | { readonly _tag: "TransferFailed"; readonly to: string; readonly reason: string }

/**
 * An SDK agent that drives a call's conversation: its commands in, notes out. The runtime
 * speaks and listens as for a definition (the call's definition's providers, if it has one);
 * the agent gives the persona and the tasks.
 *
 * @category models
 */
export interface SdkAgent {
  /** Resolves once the agent is there to start the conversation; false: it never came. */
  readonly ready: Effect.Effect<boolean>
  /** The agent's commands, in order. */
  readonly commands: Queue.Dequeue<Dialogue.Command>
  /** Keys the agent asks to send to the person (DTMF: 0-9, *, #, A-D, w for a half-second pause). */
  readonly keys: Queue.Dequeue<string>
  readonly notify: (note: Note) => Effect.Effect<void>
  /** Resolves when the agent is gone for good: the call ends as a failure of the agent. */
  readonly lost: Effect.Effect<void>
}

/**
 * @category models
 */
export interface Dependencies {
  /** The definition that answers the call, if its campaign or number has one. */
  readonly definitionFor: (callId: string) => Effect.Effect<Option.Option<CallDefinition>>
  /** Stores a collected value with the conversation. */
  readonly recordField: (conversationId: string, key: string, value: FieldValue) => Effect.Effect<void>
  /** The configured providers; absent: only the defaults. */
  readonly providers: Providers["Service"] | undefined
  /** Speech-to-text and text-to-speech of a definition that names none. */
  readonly stt: SpeechToText["Service"]
  readonly tts: TextToSpeech["Service"]
  /** The agent of calls without a definition. */
  readonly fallback: Agent["Service"]
  /** The SDK agent that drives the call, if one does. */
  readonly sdkAgentFor?: ((context: CallContext) => Effect.Effect<Option.Option<SdkAgent>>) | undefined
  readonly settings?: Partial<Settings> | undefined
}

/**
 * The runtime as an `Agent`.
 *
 * @category constructors
 */
export const make = (dependencies: Dependencies): Agent["Service"] => {
  const settings: Settings = { ...defaultSettings, ...dependencies.settings }
  const extractor: DeterministicPolicy.Extractor = (field, utterance, context) =>
    FieldExtraction.extract(field, utterance, { today: context.today })

  const planFor = CallPlan.planner(dependencies)

  // `encodingFor` runs just before `run` for the same call: the plan is looked up once.
  const planned = new Map<string, CallPlan.Plan>()

  return Agent.of({
    encoding: "pcm16",
    encodingFor: (context) =>
      Effect.flatMap(planFor(context), (plan): Effect.Effect<AudioEncoding> => {
        planned.set(context.callId, plan)
        switch (plan._tag) {
          case "Fallback": {
            const fallback = dependencies.fallback
            return fallback.encodingFor === undefined
              ? Effect.succeed(fallback.encoding)
              : fallback.encodingFor(context)
          }
          case "SpeechToSpeech":
            return Effect.succeed(plan.model.encoding)
          case "Pipeline":
          case "Misconfigured":
            return Effect.succeed("pcm16")
        }
      }),
    run: (call) =>
      Effect.gen(function*() {
        const cached = planned.get(call.context.callId)
        planned.delete(call.context.callId)
        const plan = cached ?? (yield* planFor(call.context))
        switch (plan._tag) {
          case "Fallback":
            return yield* dependencies.fallback.run(call)
          case "Misconfigured":
            yield* Effect.logError(`Call ${call.context.callId}: ${plan.message}`)
            return agentFailure
          case "Pipeline": {
            const sdkAgent = plan.sdkAgent
            if (sdkAgent === undefined) {
              return yield* Effect.scoped(Pipeline.run(call, plan, settings, extractor, dependencies))
            }
            if (!(yield* sdkAgent.ready)) {
              yield* Effect.logError(`Call ${call.context.callId}: the SDK agent never connected`)
              return agentFailure
            }
            return yield* Effect.raceFirst(
              Effect.scoped(Pipeline.run(call, plan, settings, extractor, dependencies)),
              Effect.as(
                Effect.andThen(
                  sdkAgent.lost,
                  Effect.logError(`Call ${call.context.callId}: the SDK agent went away and did not come back`)
                ),
                agentFailure
              )
            )
          }
          case "SpeechToSpeech":
            return yield* SpeechToSpeechCall.run(call, plan, settings, extractor, dependencies)
        }
      })
  })
}
