/**
 * A local fake of Deepgram's streaming speech-to-text (`/v1/listen` over WebSocket), written from
 * Deepgram's documented wire format independently of our adapter: an adapter pointed at its
 * `url` should not be able to tell it from Deepgram, for simulated speech.
 *
 * Handshake (an HTTP upgrade, answered by hand so that refusals carry Deepgram's headers):
 * the path must be `/v1/listen`; `Authorization: Token <apiKey>` is required (401
 * `INVALID_AUTH` otherwise); raw audio needs `encoding` and `sample_rate` (400 otherwise), and
 * this fake decodes only what our telephone audio is, `linear16` at 8000 Hz, one channel (400
 * for anything else). Refusals answer JSON `{err_code, err_msg, request_id}` with the
 * `dg-error` (the message) and `dg-request-id` headers; an accepted upgrade also carries
 * `dg-request-id`.
 *
 * Stream. Binary messages are little-endian 16-bit PCM, fed to SimSpeech's streaming decoder
 * (`@voice-agent/media/SimSpeech`): the fake really listens, and each utterance it recovers is
 * answered, after `latencyMs`, with a `Results` message shaped as Deepgram's (`type`,
 * `channel_index`, `duration`, `start`, `is_final`, `speech_final`,
 * `channel.alternatives[{transcript, confidence, words[]}]`, `metadata{request_id, model_info,
 * model_uuid}`, `from_finalize`), `start` and `duration` in seconds from the stream's first
 * byte, from the utterance's sample offsets, `is_final` and `speech_final` true, the words
 * spread evenly over the utterance. With `interim_results=true`, an interim `Results` (the
 * first half of the words, `is_final: false`) comes before each final one; with
 * `vad_events=true`, a `SpeechStarted` message. Text messages: `{"type":"KeepAlive"}` is
 * counted; `{"type":"CloseStream"}` is answered, after the results already due, by a
 * `Metadata` message (`transaction_key`, `request_id`, `sha256` of the audio, `created`,
 * `duration`, `channels`, `models`, `model_info`) and a close with 1000. Nothing received
 * for `idleTimeoutMs` (10 s, as Deepgram) closes the stream with 1011 `NET-0001`.
 *
 * Knobs: `latencyMs` before each result; `refuse` the handshake with a status (and message);
 * `hang` (accept the TCP connection, never answer the upgrade); `dropAfterResults` (after that
 * many results, drop the TCP connection, or close with `dropCode`/`dropReason`);
 * `ignoreCloseStream`; `words: false` (results without words); `stallReading` (stop reading the
 * socket once open, so that the client's send buffer fills).
 *
 * Records, per connection, what it received: path, query, headers, binary bytes, KeepAlives,
 * whether CloseStream came and how many results had been sent by then, results sent, and how
 * the connection ended (`closed`: the close code, once closed).
 *
 * Timing uses real timers (it serves real sockets; tests using it are `it.live`); `created` comes
 * from the `Clock` of the scope it is made in.
 *
 * @since 0.1.0
 */
import { WebSocketServer } from "@effect/platform-node/NodeWS"
import type { WebSocket } from "@effect/platform-node/NodeWS"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import { Clock, Effect } from "effect"
import type { Scope } from "effect"
import { createHash } from "node:crypto"
import type { Hash } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { createServer, STATUS_CODES } from "node:http"
import type { AddressInfo, Socket } from "node:net"

/**
 * @category models
 */
export interface DeepgramFakeOptions {
  /** The key `Authorization: Token <apiKey>` must carry. */
  readonly apiKey: string
  /** Delay before each result (and before the answer to CloseStream), ms. */
  readonly latencyMs?: number
  /** Refuse every handshake with this status and `dg-error` message. */
  readonly refuse?: { readonly status: number; readonly message?: string }
  /** Never answer the handshake. */
  readonly hang?: boolean
  /** Drop the connection once this many results were sent. */
  readonly dropAfterResults?: number
  /** Close with this code when dropping (absent: the TCP connection is destroyed). */
  readonly dropCode?: number
  readonly dropReason?: string
  /** Do not answer CloseStream (no Metadata, no close). */
  readonly ignoreCloseStream?: boolean
  /** Close with 1011 NET-0001 after this long without any message; 10000 by default. */
  readonly idleTimeoutMs?: number
  /** Results carry `words`; true by default. */
  readonly words?: boolean
  /** Stop reading the socket once the stream is open (a server that fell behind). */
  readonly stallReading?: boolean
}

/**
 * What one connection brought, updated as it goes.
 *
 * @category models
 */
export interface Connection {
  readonly requestId: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingMessage["headers"]
  /** Refused with this status, or 101. */
  status: number
  bytes: number
  keepAlives: number
  /** Text messages that were not KeepAlive. */
  readonly texts: Array<string>
  closeStream: boolean
  /** Finals sent when CloseStream arrived. */
  resultsBeforeCloseStream: number | undefined
  /** Final results sent. */
  results: number
  interims: number
  /** How the stream ended, from the fake's side. */
  end: "open" | "closed" | "dropped" | "idle"
  /** Resolves with the close code once the WebSocket has closed (1006 when the TCP connection went). */
  readonly closed: Promise<number>
}

/**
 * @category models
 */
export interface DeepgramFake {
  /** `ws://127.0.0.1:<port>`: the adapter's `baseUrl`. */
  readonly url: string
  readonly connections: ReadonlyArray<Connection>
}

const MODEL_UUID = "40bd3654-e622-47c4-a111-63a61b23bfe0"
const MODEL_INFO = { name: "general-nova-3", version: "2025-04-17.21547", arch: "nova-3" }

const refusalText = (
  status: number,
  code: string,
  message: string,
  requestId: string
): string => {
  const body = JSON.stringify({ err_code: code, err_msg: message, request_id: requestId })
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `dg-error: ${message}`,
    `dg-request-id: ${requestId}`,
    "Connection: close",
    "",
    body
  ].join("\r\n")
}

/** Why the handshake is refused, if it is. */
const check = (
  options: DeepgramFakeOptions,
  path: string,
  query: URLSearchParams,
  authorization: string | undefined
): { readonly status: number; readonly code: string; readonly message: string } | undefined => {
  if (options.refuse !== undefined) {
    return {
      status: options.refuse.status,
      code: STATUS_CODES[options.refuse.status]?.toUpperCase().replaceAll(" ", "_") ?? "ERROR",
      message: options.refuse.message ?? STATUS_CODES[options.refuse.status] ?? "Error"
    }
  }
  if (path !== "/v1/listen") return { status: 404, code: "NOT_FOUND", message: `No such endpoint: ${path}` }
  if (authorization !== `Token ${options.apiKey}`) {
    return { status: 401, code: "INVALID_AUTH", message: "Invalid credentials." }
  }
  const encoding = query.get("encoding")
  const sampleRate = query.get("sample_rate")
  if (encoding === null) {
    return { status: 400, code: "Bad Request", message: "This fake decodes raw audio only: encoding is required" }
  }
  if (sampleRate === null) {
    return { status: 400, code: "Bad Request", message: "sample_rate is required when encoding is set" }
  }
  if (encoding !== "linear16" || sampleRate !== "8000" || (query.get("channels") ?? "1") !== "1") {
    return {
      status: 400,
      code: "Bad Request",
      message: `This fake decodes linear16 at 8000 Hz, one channel (got ${encoding} at ${sampleRate})`
    }
  }
  return undefined
}

/** One accepted stream: decodes the audio and answers in order. */
const serve = (
  ws: WebSocket,
  connection: Connection,
  options: DeepgramFakeOptions,
  now: () => number
): void => {
  const decoder = new SimSpeech.Decoder()
  const sha: Hash = createHash("sha256")
  const latency = options.latencyMs ?? 0
  const interim = connection.query.get("interim_results") === "true"
  const vadEvents = connection.query.get("vad_events") === "true"
  const withWords = options.words ?? true
  let carry: number | undefined = undefined
  let stopped = false
  // every answer goes through this chain, so they leave in order, each after the latency
  let chain: Promise<void> = Promise.resolve()
  const later = (action: () => void): void => {
    chain = chain.then(() =>
      new Promise<void>((resolve) =>
        setTimeout(() => {
          if (!stopped) action()
          resolve()
        }, latency)
      )
    )
  }
  const send = (message: unknown): void => {
    if (!stopped) ws.send(JSON.stringify(message))
  }

  const idleMs = options.idleTimeoutMs ?? 10_000
  let idle: NodeJS.Timeout | undefined = undefined
  const resetIdle = (): void => {
    if (idle !== undefined) clearTimeout(idle)
    idle = setTimeout(() => {
      if (stopped) return
      stopped = true
      connection.end = "idle"
      ws.close(1011, "NET-0001")
    }, idleMs)
  }
  resetIdle()

  const results = (utterance: SimSpeech.Utterance, words: ReadonlyArray<string>, final: boolean) => {
    const start = utterance.start / SimSpeech.SAMPLE_RATE
    const duration = (utterance.end - utterance.start) / SimSpeech.SAMPLE_RATE
    const each = duration / Math.max(1, words.length)
    return {
      type: "Results",
      channel_index: [0, 1],
      duration,
      start,
      is_final: final,
      speech_final: final,
      channel: {
        alternatives: [{
          transcript: words.join(" "),
          confidence: 0.99,
          words: withWords
            ? words.map((word, i) => ({
              word: word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ""),
              start: start + i * each,
              end: i === words.length - 1 ? start + duration : start + (i + 1) * each,
              confidence: 0.99,
              punctuated_word: word
            }))
            : []
        }]
      },
      metadata: { request_id: connection.requestId, model_info: MODEL_INFO, model_uuid: MODEL_UUID },
      from_finalize: false
    }
  }

  const answer = (utterance: SimSpeech.Utterance): void => {
    const words = utterance.text.split(/\s+/).filter((word) => word !== "")
    if (vadEvents) {
      later(() => send({ type: "SpeechStarted", channel: [0, 1], timestamp: utterance.start / SimSpeech.SAMPLE_RATE }))
    }
    if (interim && words.length > 1) {
      later(() => {
        send(results(utterance, words.slice(0, Math.ceil(words.length / 2)), false))
        connection.interims++
      })
    }
    later(() => {
      send(results(utterance, words, true))
      connection.results++
      if (options.dropAfterResults !== undefined && connection.results >= options.dropAfterResults) {
        stopped = true
        connection.end = "dropped"
        if (options.dropCode === undefined) ws.terminate()
        else ws.close(options.dropCode, options.dropReason)
      }
    })
  }

  ws.on("message", (data: Buffer, isBinary: boolean) => {
    if (stopped) return
    resetIdle()
    if (isBinary) {
      connection.bytes += data.length
      sha.update(data)
      let bytes = data
      if (carry !== undefined) {
        bytes = Buffer.concat([Buffer.from([carry]), data])
        carry = undefined
      }
      const count = Math.floor(bytes.length / 2)
      if (bytes.length % 2 === 1) carry = bytes[bytes.length - 1]
      const samples = new Int16Array(count)
      for (let i = 0; i < count; i++) samples[i] = bytes.readInt16LE(2 * i)
      for (const utterance of decoder.push(samples)) answer(utterance)
      return
    }
    const text = data.toString("utf8")
    let type: unknown = undefined
    try {
      type = (JSON.parse(text) as { type?: unknown }).type
    } catch {
      // not JSON: recorded below
    }
    if (type === "KeepAlive") {
      connection.keepAlives++
      return
    }
    connection.texts.push(text)
    if (type !== "CloseStream") return
    connection.closeStream = true
    connection.resultsBeforeCloseStream = connection.results
    if (options.ignoreCloseStream === true) return
    later(() => {
      send({
        type: "Metadata",
        transaction_key: "deprecated",
        request_id: connection.requestId,
        sha256: sha.copy().digest("hex"),
        created: new Date(now()).toISOString(),
        duration: decoder.offset / SimSpeech.SAMPLE_RATE,
        channels: 1,
        models: [MODEL_UUID],
        model_info: { [MODEL_UUID]: MODEL_INFO }
      })
      stopped = true
      connection.end = "closed"
      ws.close(1000)
    })
  })
  ws.on("close", () => {
    stopped = true
    if (idle !== undefined) clearTimeout(idle)
  })
  if (options.stallReading === true) ws.pause()
  ws.on("error", () => {
    stopped = true
  })
}

/**
 * Starts the fake on an ephemeral local port, for the scope.
 *
 * @category constructors
 */
export const make = (options: DeepgramFakeOptions): Effect.Effect<DeepgramFake, never, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const now = () => clock.currentTimeMillisUnsafe()
    const connections: Array<Connection> = []
    const sockets = new Set<Socket>()
    const server = createServer((_request, response) => {
      response.writeHead(426).end("A WebSocket upgrade is expected")
    })
    const wss = new WebSocketServer({ noServer: true })
    let counter = 0
    server.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })
    server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
      if (options.hang === true) return
      const url = new URL(request.url ?? "/", "http://fake")
      const requestId = `00000000-0000-4000-8000-${String(++counter).padStart(12, "0")}`
      let onClosed: (code: number) => void = () => {}
      const closed = new Promise<number>((resolve) => {
        onClosed = resolve
      })
      const connection: Connection = {
        requestId,
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        status: 101,
        bytes: 0,
        keepAlives: 0,
        texts: [],
        closeStream: false,
        resultsBeforeCloseStream: undefined,
        results: 0,
        interims: 0,
        end: "open",
        closed
      }
      connections.push(connection)
      const refused = check(options, url.pathname, url.searchParams, request.headers.authorization)
      if (refused !== undefined) {
        connection.status = refused.status
        connection.end = "closed"
        socket.end(refusalText(refused.status, refused.code, refused.message, requestId))
        onClosed(1006)
        return
      }
      const addRequestId = (headers: Array<string>) => {
        headers.push(`dg-request-id: ${requestId}`)
      }
      wss.once("headers", addRequestId)
      wss.handleUpgrade(request, socket, head, (ws) => {
        ws.on("close", (code: number) => onClosed(code))
        serve(ws, connection, options, now)
      })
    })

    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const client of wss.clients) client.terminate()
          for (const socket of sockets) socket.destroy()
          wss.close()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { url: `ws://127.0.0.1:${port}`, connections }
  })
