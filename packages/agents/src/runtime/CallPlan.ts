/**
 * Which way a call's conversation runs (its plan), from its agent definition and the configured
 * providers: the `fallback` agent (no definition), a pipeline (speech-to-text, a policy,
 * text-to-speech; with a chat model when `llm` names one), a speech-to-speech model (`llm` names
 * one), or a misconfiguration (a provider name that is not configured: the call fails). A remote
 * agent that drives the call gives the persona and the tasks; the definition then gives only its
 * providers, and always a pipeline (a speech-to-speech model is not used).
 *
 * @since 0.1.0
 */
import type { CallContext } from "@voice-agent/core/ports/Agent"
import type { ChatModel } from "@voice-agent/core/ports/ChatModel"
import type { LanguageProvider } from "@voice-agent/core/ports/Providers"
import type { SpeechToSpeech } from "@voice-agent/core/ports/SpeechToSpeech"
import type { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import type { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import { Effect, Option } from "effect"
import type { CallDefinition, Dependencies, SdkAgent } from "../ConversationAgent.ts"

/**
 * @category models
 */
export type Plan =
  | { readonly _tag: "Fallback" }
  | { readonly _tag: "Misconfigured"; readonly message: string }
  | {
    readonly _tag: "Pipeline"
    readonly definition: CallDefinition
    readonly stt: SpeechToText["Service"]
    readonly tts: TextToSpeech["Service"]
    readonly chat: ChatModel["Service"] | undefined
    readonly sdkAgent?: SdkAgent | undefined
  }
  | {
    readonly _tag: "SpeechToSpeech"
    readonly definition: CallDefinition
    readonly model: SpeechToSpeech["Service"]
  }

/**
 * @category models
 */
export type PipelinePlan = Extract<Plan, { _tag: "Pipeline" }>

/**
 * @category models
 */
export type SpeechToSpeechPlan = Extract<Plan, { _tag: "SpeechToSpeech" }>

const noDefinition: CallDefinition = {
  persona: {},
  task: null,
  instructions: null,
  language: null,
  llm: null,
  stt: null,
  tts: null
}

/**
 * The plan of each call, by `dependencies`' definitions, providers and SDK agents.
 *
 * @category constructors
 */
export const planner = (dependencies: Dependencies): (context: CallContext) => Effect.Effect<Plan> => {
  const sdkAgentFor = dependencies.sdkAgentFor ?? (() => Effect.succeedNone)
  const planFor = (context: CallContext): Effect.Effect<Plan> =>
    Effect.gen(function*() {
      const callId = context.callId
      const sdkAgent = yield* sdkAgentFor(context)
      const found = yield* dependencies.definitionFor(callId)
      if (Option.isNone(sdkAgent)) return pickPlan(found)
      // An SDK agent gives persona and tasks; a definition only its providers (a pipeline's).
      const plan = pickPlan(Option.some(Option.match(found, {
        onNone: () => noDefinition,
        onSome: (definition) => ({ ...noDefinition, stt: definition.stt, tts: definition.tts, llm: definition.llm })
      })))
      if (plan._tag === "Pipeline") return { ...plan, sdkAgent: sdkAgent.value }
      if (plan._tag === "SpeechToSpeech") {
        yield* Effect.logWarning(
          `Call ${callId}: an SDK agent drives the conversation; the speech-to-speech model is not used`
        )
        return pickPlan(Option.some({ ...noDefinition, stt: null, tts: null }))
      }
      return plan
    })

  const pickPlan = (found: Option.Option<CallDefinition>): Plan => {
    if (Option.isNone(found)) return { _tag: "Fallback" }
    const definition = found.value
    const providers = dependencies.providers
    const lookup = <A>(kind: "llm" | "stt" | "tts", name: string, get: (name: string) => Option.Option<A>) => {
      const provider = get(name)
      if (Option.isSome(provider)) return provider.value
      const known = providers?.names[kind] ?? []
      return `The agent's ${kind} provider "${name}" is not configured (configured: ${
        known.length === 0 ? "none" : known.join(", ")
      })`
    }
    const none = (): Option.Option<never> => Option.none()
    const stt = definition.stt === null ? dependencies.stt : lookup("stt", definition.stt, providers?.stt ?? none)
    const tts = definition.tts === null ? dependencies.tts : lookup("tts", definition.tts, providers?.tts ?? none)
    const llm: LanguageProvider | string | undefined = definition.llm === null
      ? undefined
      : lookup("llm", definition.llm, providers?.llm ?? none)
    for (const provider of [stt, tts, llm]) {
      if (typeof provider === "string") return { _tag: "Misconfigured", message: provider }
    }
    const language = llm as LanguageProvider | undefined
    if (language?._tag === "SpeechToSpeech") return { _tag: "SpeechToSpeech", definition, model: language.model }
    return {
      _tag: "Pipeline",
      definition,
      stt: stt as SpeechToText["Service"],
      tts: tts as TextToSpeech["Service"],
      chat: language?.model
    }
  }

  return planFor
}
