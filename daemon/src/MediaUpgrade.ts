/**
 * The media endpoint's WebSockets, taken over from the HTTP server: an upgrade request for
 * `MediaRoute.path` is accepted here with `ws` and served by the engine's MediaSession, the
 * frames handed to the session on the socket's own callbacks (`MediaSocket.listen`), with no
 * fiber step per frame. Every other request, and a `GET` of the path without an upgrade (426),
 * goes to the router as before.
 *
 * Why not the router's upgrade: Effect's `Socket` is read by pulling, so each frame (50 a
 * second per call, each on a turn of its own) resumes the reading fiber, and it encodes every
 * text frame to UTF-8 once to count it against its buffer's limit. At 100 calls that was 12 % of
 * the daemon's CPU (docs/PERFORMANCE.md, "Concurrent calls").
 *
 * Bounds: until the session listens (the handshake reads the first frames), what arrives is
 * buffered up to 64 KiB, then the socket is paused; a frame is at most 1 MiB (`maxPayload`).
 * Sessions run in a set of fibers of the layer's scope: on shutdown they get up to
 * `drainMs` to end on their own, then are interrupted.
 *
 * @since 0.1.0
 */
import type { Agent } from "@voice-agent/core/ports/Agent"
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { MediaListener, MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { incomingOf } from "@voice-agent/core/ports/MediaSocket"
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import type { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MediaRoute from "@voice-agent/engine/MediaRoute"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import { Effect, FiberSet, Layer } from "effect"
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import { WebSocketServer } from "ws"
import type { RawData, WebSocket } from "ws"

/** What waits unread before the session listens, at most (then the socket is paused). */
const highWaterMark = 64 * 1024

const decoder = new TextDecoder()

const textOf = (data: RawData, isBinary: boolean): string => {
  if (!isBinary && Buffer.isBuffer(data)) return data.toString("utf8")
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
  return decoder.decode(bytes)
}

/** Closes with 1000; a paused socket is resumed first, or the other end's close would go unread. */
const closeWebSocket = (ws: WebSocket) => {
  if (ws.isPaused) ws.resume()
  ws.close(1000, "call ended")
}

/**
 * A `ws` WebSocket as a media stream end: `read` until `listen`, then callbacks.
 *
 * @category constructors
 */
export const fromWebSocket = (ws: WebSocket): MediaSocket => {
  let unread: Array<string> = []
  let unreadBytes = 0
  let ended = ws.readyState >= 2
  let waiter: ((frames: ReadonlyArray<string> | undefined) => void) | undefined
  let listener: MediaListener | undefined
  const takeUnread = () => {
    const frames = unread
    unread = []
    unreadBytes = 0
    if (ws.isPaused) ws.resume()
    return frames
  }
  ws.on("message", (data, isBinary) => {
    const text = textOf(data, isBinary)
    if (listener !== undefined) return listener.onBatch([text])
    unread.push(text)
    unreadBytes += text.length
    if (waiter !== undefined) {
      const resume = waiter
      waiter = undefined
      return resume(takeUnread())
    }
    // Not once closing: the other end's close frame must still be read.
    if (unreadBytes >= highWaterMark && ws.readyState === 1) ws.pause()
  })
  ws.on("close", () => {
    ended = true
    if (listener !== undefined) return listener.onEnd()
    if (waiter !== undefined && unread.length === 0) {
      const resume = waiter
      waiter = undefined
      resume(undefined)
    }
  })
  ws.on("error", () => {})
  const sendUnsafe = (text: string) => {
    if (ws.readyState === 1) ws.send(text)
  }
  const read = Effect.callback<ReadonlyArray<string> | undefined>((resume) => {
    if (unread.length > 0) return resume(Effect.succeed(takeUnread()))
    if (ended) return resume(Effect.undefined)
    waiter = (frames) => resume(Effect.succeed(frames))
    return Effect.sync(() => {
      waiter = undefined
    })
  })
  return {
    read,
    incoming: incomingOf(read),
    send: (text) => Effect.sync(() => sendUnsafe(text)),
    sendUnsafe,
    close: Effect.sync(() => closeWebSocket(ws)),
    listen: (handlers) => {
      listener = handlers
      const frames = takeUnread()
      if (frames.length > 0) handlers.onBatch(frames)
      if (ended) handlers.onEnd()
    }
  }
}

const pathOf = (request: IncomingMessage) => {
  const url = request.url ?? ""
  const query = url.indexOf("?")
  return query < 0 ? url : url.slice(0, query)
}

/**
 * @category models
 */
export interface Options {
  /** On shutdown, how long calls still up may take to end on their own. */
  readonly drainMs: number
  /** The largest frame taken in (default 1 MiB: media frames are a few hundred bytes). */
  readonly maxPayload?: number | undefined
}

/**
 * Serves the media endpoint's WebSockets of `server` for the layer's life (module header).
 *
 * @category layers
 */
export const layer = (server: Server, options: Options) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const sessions = yield* FiberSet.make()
    const run = yield* FiberSet.runtime(sessions)<
      Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets
    >()
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload ?? 1024 * 1024,
      perMessageDeflate: false
    })
    const isUpgrade = (request: IncomingMessage) =>
      pathOf(request) === MediaRoute.path && request.headers.upgrade?.toLowerCase() === "websocket"
    const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<any>) => boolean
    const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      wss.handleUpgrade(request, socket, head, (ws) => {
        const media = fromWebSocket(ws)
        run(Effect.ensuring(MediaSession.serve(media), Effect.sync(() => closeWebSocket(ws))))
      })
    // Node's server has no hook before its `upgrade` listeners (the router's among them): the
    // media path's upgrades are taken at `emit`, the rest passed on unchanged.
    server.emit = ((event: string | symbol, ...args: Array<any>) => {
      if (event === "upgrade" && isUpgrade(args[0])) {
        upgrade(args[0], args[1], args[2])
        return true
      }
      return emit(event, ...args)
    }) as typeof server.emit
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        server.emit = emit
        // Calls still up get a little time to end on their own (the dialer has drained its own).
        yield* FiberSet.awaitEmpty(sessions).pipe(Effect.timeoutOption(options.drainMs))
        yield* FiberSet.clear(sessions)
        for (const client of wss.clients) client.terminate()
        wss.close()
      })
    )
  }))
