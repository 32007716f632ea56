/**
 * The media side of the daemon, composed: the engine's media endpoint (engine/MediaRoute, its
 * WebSockets taken over from the server by MediaUpgrade), the agent of each call
 * (agents/AgentChoice: an SDK agent's call, a definition's, else the scripted reference agent),
 * and the connector the simulated carrier streams through. Speech defaults to the providers
 * configuration's defaults, else simulated speech (the simulated carrier's speech-to-text and
 * text-to-speech).
 *
 * @since 0.1.0
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as AgentChoice from "@voice-agent/agents/AgentChoice"
import * as ScriptedAgent from "@voice-agent/agents/ScriptedAgent"
import * as SimSpeechToText from "@voice-agent/carrier-sim/SimSpeechToText"
import * as SimTextToSpeech from "@voice-agent/carrier-sim/SimTextToSpeech"
import type { Agent } from "@voice-agent/core/ports/Agent"
import * as MediaRoute from "@voice-agent/engine/MediaRoute"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import * as ProviderRegistry from "@voice-agent/providers/ProviderRegistry"
import { CallSessions } from "@voice-agent/sdk-agents/CallSessions"
import { Effect, Layer } from "effect"
import type { Server } from "node:http"
import * as MediaUpgrade from "./MediaUpgrade.ts"

export { endpoint, path } from "@voice-agent/engine/MediaRoute"

/**
 * The media endpoint of `server`: its WebSockets served on their own callbacks (MediaUpgrade),
 * and the route that answers a request of the path without an upgrade (426).
 *
 * @category layers
 */
export const routes = (server: Server, options: MediaUpgrade.Options) =>
  Layer.merge(MediaRoute.endpoint, MediaUpgrade.layer(server, options))

const simSpeech = Layer.mergeAll(SimSpeechToText.layer, SimTextToSpeech.layer)

/**
 * The scripted reference agent over simulated speech.
 *
 * @category layers
 */
export const scripted: Layer.Layer<Agent> = ScriptedAgent.layer().pipe(Layer.provide(simSpeech))

/** The SDK agents' calls, from their call sessions. */
const sdkAgentCalls = Layer.effect(
  AgentChoice.SdkAgentCalls,
  Effect.gen(function*() {
    const sessions = yield* CallSessions
    return AgentChoice.SdkAgentCalls.of({ sdkAgentFor: sessions.sdkAgentFor })
  })
)

/**
 * The agent of every call.
 *
 * @category layers
 */
export const agent = AgentChoice.layer.pipe(
  Layer.provide([scripted, sdkAgentCalls, ProviderRegistry.defaultSpeech.pipe(Layer.provide(simSpeech))])
)

/**
 * How the simulated carrier reaches a media endpoint: a Node WebSocket client.
 *
 * @category layers
 */
export const connector = SocketMedia.connector.pipe(Layer.provide(NodeSocket.layerWebSocketConstructor))
