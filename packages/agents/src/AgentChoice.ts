/**
 * The choice of each call's agent, as a layer: the conversation runtime (ConversationAgent),
 * which runs a call an SDK agent drives under that agent's commands, a call whose campaign or
 * number has an agent definition on the providers it names, and any other call with the
 * fallback agent in the context (the scripted reference agent, in the daemon). Speech of a
 * definition that names none: the `SpeechToText` and `TextToSpeech` in the context.
 *
 * @since 0.1.0
 */
import { Agent } from "@voice-agent/core/ports/Agent"
import type { CallContext } from "@voice-agent/core/ports/Agent"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Providers } from "@voice-agent/core/ports/Providers"
import { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import { Context, Effect, Layer, Option } from "effect"
import * as ConversationAgent from "./ConversationAgent.ts"

/**
 * The SDK agent that drives a call, if one does (optional: without it no call has one).
 *
 * @category services
 */
export class SdkAgentCalls extends Context.Service<SdkAgentCalls, {
  readonly sdkAgentFor: (context: CallContext) => Effect.Effect<Option.Option<ConversationAgent.SdkAgent>>
}>()("@voice-agent/agents/AgentChoice/SdkAgentCalls") {}

/**
 * The agent of every call; the `Agent` it needs is the fallback, the one it provides the
 * choice.
 *
 * @category layers
 */
export const layer: Layer.Layer<
  Agent,
  never,
  Agent | AgentRepository | ConversationRepository | Providers | SpeechToText | TextToSpeech
> = Layer.effect(
  Agent,
  Effect.gen(function*() {
    const agents = yield* AgentRepository
    const conversations = yield* ConversationRepository
    const sdkAgents = yield* Effect.serviceOption(SdkAgentCalls)
    return ConversationAgent.make({
      sdkAgentFor: Option.isSome(sdkAgents) ? sdkAgents.value.sdkAgentFor : undefined,
      definitionFor: agents.forCall,
      recordField: conversations.recordField,
      providers: yield* Providers,
      stt: yield* SpeechToText,
      tts: yield* TextToSpeech,
      fallback: yield* Agent
    })
  })
)
