/**
 * The media side of the daemon: the WebSocket endpoint carriers stream calls to
 * (`/carrier/twilio/media`, CONTRACT §7, Twilio Media Streams format; the simulated carrier
 * speaks the same), the agent that talks on each call, and the connector the simulated carrier
 * streams through. Each connection runs the engine's MediaSession, which refuses it unless its
 * `start` message carries the call's token.
 *
 * The agent is the conversation runtime (agents/ConversationAgent): a call an SDK agent
 * controls (the reference SDK's protocol, remote/CallSessions) is driven by it; a call whose
 * campaign or number has an agent definition runs it, on the providers it names (`Providers`, from the
 * daemon's configuration); any other call gets the scripted reference agent. Speech defaults
 * to the providers configuration's defaults, else simulated speech (the simulated carrier's
 * speech-to-text and text-to-speech).
 *
 * @since 0.1.0
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as ConversationAgent from "@voice-agent/agents/ConversationAgent"
import * as ScriptedAgent from "@voice-agent/agents/ScriptedAgent"
import * as SimSpeechToText from "@voice-agent/carrier-sim/SimSpeechToText"
import * as SimTextToSpeech from "@voice-agent/carrier-sim/SimTextToSpeech"
import { Agent } from "@voice-agent/core/ports/Agent"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Providers } from "@voice-agent/core/ports/Providers"
import { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import { CallSessions } from "@voice-agent/sdk-agents/CallSessions"
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as ProviderConfig from "./ProviderConfig.ts"

/**
 * The path of the media endpoint.
 *
 * @category constructors
 */
export const path = "/carrier/twilio/media"

/**
 * The endpoint: upgrades the request and serves the stream until it ends.
 *
 * @category layers
 */
export const endpoint = HttpRouter.add(
  "GET",
  path,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const socket = yield* request.upgrade
    yield* Effect.scoped(Effect.flatMap(SocketMedia.fromSocket(socket), (media) => MediaSession.serve(media)))
    return HttpServerResponse.empty()
  }).pipe(
    Effect.catch(() => Effect.succeed(HttpServerResponse.text("A WebSocket upgrade is expected", { status: 426 })))
  )
)

/**
 * The scripted reference agent over simulated speech.
 *
 * @category layers
 */
export const scripted: Layer.Layer<Agent> = ScriptedAgent.layer().pipe(
  Layer.provide([SimSpeechToText.layer, SimTextToSpeech.layer])
)

/**
 * The agent of every call: the conversation runtime, with the scripted reference agent for
 * calls without a definition.
 *
 * @category layers
 */
export const agent: Layer.Layer<
  Agent,
  never,
  AgentRepository | ConversationRepository | Providers | ProviderConfig.Defaults | CallSessions
> = Layer.effect(
  Agent,
  Effect.gen(function*() {
    const agents = yield* AgentRepository
    const conversations = yield* ConversationRepository
    const providers = yield* Providers
    const defaults = yield* ProviderConfig.Defaults
    const stt = yield* SpeechToText
    const tts = yield* TextToSpeech
    const fallback = yield* Agent
    const sessions = yield* CallSessions
    return ConversationAgent.make({
      sdkAgentFor: sessions.sdkAgentFor,
      definitionFor: agents.forCall,
      recordField: conversations.recordField,
      providers,
      stt: Option.getOrElse(Option.flatMap(Option.fromNullishOr(defaults.stt), providers.stt), () => stt),
      tts: Option.getOrElse(Option.flatMap(Option.fromNullishOr(defaults.tts), providers.tts), () => tts),
      fallback
    })
  })
).pipe(Layer.provide(Layer.merge(scripted, Layer.mergeAll(SimSpeechToText.layer, SimTextToSpeech.layer))))

/**
 * How the simulated carrier reaches a media endpoint: a Node WebSocket client.
 *
 * @category layers
 */
export const connector = SocketMedia.connector.pipe(Layer.provide(NodeSocket.layerWebSocketConstructor))
