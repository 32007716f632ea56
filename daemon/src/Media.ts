/**
 * The media side of the daemon: the WebSocket endpoint carriers stream calls to
 * (`/carrier/twilio/media`, CONTRACT §7, Twilio Media Streams format; the simulated carrier
 * speaks the same), the agent that talks on each call, and the connector the simulated carrier
 * streams through. Each connection runs the engine's MediaSession, which refuses it unless its
 * `start` message carries the call's token.
 *
 * The agent is the scripted reference agent (agents/ScriptedAgent) over simulated speech (the
 * simulated carrier's speech-to-text and text-to-speech); language-model agents and real
 * speech providers come with the agents issue.
 *
 * @since 0.1.0
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as ScriptedAgent from "@voice-agent/agents/ScriptedAgent"
import * as SimSpeechToText from "@voice-agent/carrier-sim/SimSpeechToText"
import * as SimTextToSpeech from "@voice-agent/carrier-sim/SimTextToSpeech"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

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
 * The agent of every call: the scripted reference agent over simulated speech.
 *
 * @category layers
 */
export const agent = ScriptedAgent.layer().pipe(Layer.provide([SimSpeechToText.layer, SimTextToSpeech.layer]))

/**
 * How the simulated carrier reaches a media endpoint: a Node WebSocket client.
 *
 * @category layers
 */
export const connector = SocketMedia.connector.pipe(Layer.provide(NodeSocket.layerWebSocketConstructor))
