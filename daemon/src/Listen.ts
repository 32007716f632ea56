/**
 * Live listen (CONTRACT §7): `GET /v1/conversations/{call_id}/listen?channel=agent|remote|mixed`,
 * a WebSocket upgrade authenticated by the bearer API key in the `Authorization` header. Each
 * aligned timeline segment of the call is sent as a Media Streams-shaped text frame
 * `{"event":"media","media":{"timestamp":"<ms since answer>","payload":"<base64 μ-law>"}}` (20 ms
 * frames), then `{"event":"stop"}` when the call ends, and the socket closes.
 *
 * Before the upgrade, in §5's check order: 401 (missing, unknown or revoked key), 422 (another
 * channel name), 404 (no such call, another organization's, ended, or one whose media this
 * daemon does not serve: live listen reaches only calls streaming to this process).
 *
 * A listener slower than the call loses the oldest audio (LiveCalls' sliding PubSub).
 *
 * @since 0.1.0
 */
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { LiveCalls } from "@voice-agent/engine/LiveCalls"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Effect, Option, Stream } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * The route's path.
 *
 * @category constructors
 */
export const path = "/v1/conversations/:call_id/listen"

/**
 * The channels one may listen to.
 *
 * @category models
 */
export const channels = ["agent", "remote", "mixed"] as const

type ListenChannel = typeof channels[number]

const FRAME_SAMPLES = 20 * CallTimeline.SAMPLES_PER_MS

const failure = (status: number, detail: string) => HttpServerResponse.jsonUnsafe({ detail }, { status })

/**
 * A segment's channel as Media Streams frames of 20 ms (the last one shorter).
 *
 * @category constructors
 */
export const frames = (segment: CallTimeline.Segment, channel: ListenChannel): Array<string> => {
  const pcm = segment[channel]
  const out: Array<string> = []
  for (let offset = 0; offset < pcm.length; offset += FRAME_SAMPLES) {
    const part = pcm.subarray(offset, Math.min(pcm.length, offset + FRAME_SAMPLES))
    const timestamp = String(Math.floor((segment.start + offset) / CallTimeline.SAMPLES_PER_MS))
    out.push(JSON.stringify({
      event: "media",
      media: { timestamp, payload: Buffer.from(MuLaw.encode(part)).toString("base64") }
    }))
  }
  return out
}

/**
 * The endpoint.
 *
 * @category layers
 */
export const endpoint = HttpRouter.add(
  "GET",
  path,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const header = request.headers["authorization"] ?? ""
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    const organization = match === null
      ? Option.none()
      : yield* (yield* ApiKeyRepository).authenticate(match[1]!)
    if (Option.isNone(organization)) return failure(401, "Invalid or missing API key")

    const channel = (yield* HttpServerRequest.ParsedSearchParams)["channel"]
    if (typeof channel !== "string" || !(channels as ReadonlyArray<string>).includes(channel)) {
      return failure(422, "channel must be one of agent, remote, mixed")
    }
    const callId = (yield* HttpRouter.params)["call_id"] ?? ""
    const notFound = failure(404, "Call not found or not live on this server")
    const conversation = yield* (yield* ConversationRepository).findByCallId(organization.value.id, callId)
    if (Option.isNone(conversation) || conversation.value.endedAt !== null) return notFound
    const segments = yield* (yield* LiveCalls).listen(callId)
    if (Option.isNone(segments)) return notFound

    const socket = yield* request.upgrade
    const media = yield* SocketMedia.fromSocket(socket)
    const sending = segments.value.pipe(
      Stream.runForEach((segment) => Effect.forEach(frames(segment, channel as ListenChannel), media.send)),
      Effect.andThen(media.send(JSON.stringify({ event: "stop" }))),
      Effect.andThen(media.close)
    )
    // Until the call ends, or the listener goes away.
    yield* Effect.raceFirst(sending, Stream.runDrain(media.incoming))
    return HttpServerResponse.empty()
  }).pipe(
    Effect.scoped,
    Effect.catch(() => Effect.succeed(HttpServerResponse.text("A WebSocket upgrade is expected", { status: 426 })))
  )
)
