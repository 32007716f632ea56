/**
 * Media streams over real WebSockets: an Effect `Socket` (an upgraded HTTP request on the
 * server, `Socket.makeWebSocket` on the client) as a `MediaSocket`, and the `MediaConnector`
 * that opens one to a URL. Text frames only (Twilio sends and accepts text frames; a binary
 * frame is read as UTF-8).
 *
 * Bounds: the reader pulls frames as the session consumes them (the socket's own buffer is the
 * only one); writes wait for the socket.
 *
 * @since 0.1.0
 */
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { incomingOf, MediaConnectError, MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import { Duration, Effect, Layer } from "effect"
import type { Scope } from "effect"
import * as Socket from "effect/socket/Socket"

const decoder = new TextDecoder()

const isText = (frame: string | Uint8Array): frame is string => typeof frame === "string"

/**
 * The socket as a media stream end, for the scope.
 *
 * @category constructors
 */
export const fromSocket = (socket: Socket.Socket): Effect.Effect<MediaSocket, Socket.SocketError, Scope.Scope> =>
  Effect.gen(function*() {
    const reader = yield* socket.reader
    const writer = yield* socket.writer
    // Each pull is what the socket received since the last one; text frames (all of Twilio's)
    // as they are, without a copy of the batch per read.
    const read = reader.pull.pipe(
      Effect.map((frames): ReadonlyArray<string> =>
        frames.every(isText) ? frames : frames.map((frame) => isText(frame) ? frame : decoder.decode(frame))
      ),
      Effect.catch(() => Effect.undefined)
    )
    return {
      read,
      incoming: incomingOf(read),
      send: (text) => writer.write(text).pipe(Effect.ignore),
      close: writer.write(new Socket.CloseEvent(1000, "call ended")).pipe(Effect.ignore)
    } satisfies MediaSocket
  })

/**
 * Opens media streams with the given WebSocket constructor (Node's: `NodeSocket.layerWebSocketConstructor`).
 *
 * @category layers
 */
export const connector: Layer.Layer<MediaConnector, never, Socket.WebSocketConstructor> = Layer.effect(
  MediaConnector,
  Effect.gen(function*() {
    const constructor = yield* Socket.WebSocketConstructor
    return MediaConnector.of({
      connect: (url) =>
        Socket.makeWebSocket(url, { openTimeout: Duration.seconds(5) }).pipe(
          Effect.flatMap(fromSocket),
          Effect.provideService(Socket.WebSocketConstructor, constructor),
          Effect.mapError((error) => new MediaConnectError({ url, message: error.message }))
        )
    })
  })
)
