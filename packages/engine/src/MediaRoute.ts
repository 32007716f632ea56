/**
 * The media endpoint: the WebSocket route carriers stream calls to (`/carrier/twilio/media`,
 * docs/MEDIA.md; Twilio Media Streams format, which the simulated carrier speaks too). Each
 * connection runs the media session (MediaSession), which refuses it unless its `start`
 * message carries the call's token. A program that serves HTTP mounts `endpoint` on its router;
 * one that does not can serve streams in process (testing/MemoryMedia, examples/embed-engine).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as MediaSession from "./MediaSession.ts"
import * as SocketMedia from "./SocketMedia.ts"

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
