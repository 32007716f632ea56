/**
 * The Node HTTP server the API is served on: `node:http`'s, with the answers Node gives on its
 * own (before any request reaches the app) in the API's error shape, `{"detail": "<sentence>"}`
 * (docs/DECISIONS.md, "Requests and errors"), instead of a bare status line:
 *
 * - a request its parser refuses (bytes not allowed in the target or a header, a malformed
 *   `Content-Length` or `Transfer-Encoding`, headers over its 16 KiB limit, chunk extensions
 *   over its limit, a request not finished within `requestTimeout`): 400, 431, 413 or 408, and
 *   the connection closed, as Node does;
 * - an `Expect` other than `100-continue`: 417.
 *
 * Nothing is written when the connection cannot take it (it is just closed). A refused request
 * pipelined behind one still being answered is answered after that one, where Node would close
 * the connection without a word.
 *
 * @since 0.1.0
 */
import type { IncomingMessage, ServerOptions, ServerResponse } from "node:http"
import * as Http from "node:http"
import type { Duplex } from "node:stream"

/**
 * The `detail` of each answer given here, never by the app: a client can tell a request the
 * server refused unread from one the app refused.
 *
 * @category constants
 */
export const details = {
  malformed: "Malformed HTTP request",
  headersTooLarge: "Request header fields too large",
  chunkExtensionsTooLarge: "Request chunk extensions too large",
  timedOut: "Request timed out",
  expectation: "Only 'Expect: 100-continue' is supported"
} as const

/** What Node answers, by its parser's error code; anything else is 400. */
const answers: Record<string, readonly [status: number, detail: string]> = {
  HPE_HEADER_OVERFLOW: [431, details.headersTooLarge],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, details.chunkExtensionsTooLarge],
  ERR_HTTP_REQUEST_TIMEOUT: [408, details.timedOut]
}
const malformed = [400, details.malformed] as const

const errorBody = (detail: string): string => JSON.stringify({ detail })

/** The raw answer to write on the socket itself: a client error has no response object. */
const rawAnswer = (status: number, detail: string): string => {
  const body = errorBody(detail)
  return `HTTP/1.1 ${status} ${Http.STATUS_CODES[status]}\r\n` +
    "Content-Type: application/json\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    "Connection: close\r\n\r\n" +
    body
}

/**
 * A `node:http` server answering what its parser refuses in the API's error shape.
 *
 * @category constructors
 */
export const createServer = (options: ServerOptions = {}): Http.Server => {
  const server = Http.createServer(options)
  // The answer in progress on each connection, so that the answer to a refused pipelined
  // request never writes into it.
  const answering = new WeakMap<Duplex, ServerResponse>()
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    answering.set(request.socket, response)
    response.once("finish", () => {
      if (answering.get(request.socket) === response) answering.delete(request.socket)
    })
  })
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy()
      return
    }
    const [status, detail] = answers[error.code ?? ""] ?? malformed
    const refuse = () => socket.writable ? socket.end(rawAnswer(status, detail)) : socket.destroy()
    // A request pipelined behind one still being answered: its answer follows that one.
    const inFlight = answering.get(socket)
    if (inFlight !== undefined && !inFlight.writableFinished) inFlight.once("close", refuse)
    else refuse()
  })
  server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    const body = errorBody(details.expectation)
    response.writeHead(417, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
  return server
}
