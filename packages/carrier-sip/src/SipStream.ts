/**
 * Cuts SIP messages out of a TCP byte stream by Content-Length (RFC 3261 §18.3).
 *
 * Owns: the bytes received and not yet cut. `push` takes a chunk, however the stream split
 * it, and returns the complete messages it finishes, each as its own bytes for
 * `SipMessage.parse(bytes, "stream")`. CRLFs between messages (RFC 5626 keep-alives) are
 * skipped. A header section with no usable Content-Length, or one larger than
 * `SipMessage.MAX_MESSAGE_BYTES`, makes the stream unusable (no way to find the next message):
 * `push` returns a `Broken` result and the caller closes the connection.
 *
 * A mutable value owned by one connection's reader.
 *
 * @since 0.1.0
 */
import * as SipMessage from "./SipMessage.ts"

/**
 * @category models
 */
export interface SipStream {
  buffer: Uint8Array
  broken: string | undefined
}

/**
 * @category models
 */
export type Pushed =
  | { readonly _tag: "Messages"; readonly messages: ReadonlyArray<Uint8Array> }
  | { readonly _tag: "Broken"; readonly messages: ReadonlyArray<Uint8Array>; readonly detail: string }

/**
 * @category constructors
 */
export const make = (): SipStream => ({ buffer: new Uint8Array(0), broken: undefined })

const decoder = new TextDecoder("utf-8")

const contentLength = (head: string): number | string => {
  let found: number | undefined
  for (const line of head.split(/\r?\n/)) {
    const match = /^(content-length|l)[ \t]*:[ \t]*(.*)$/i.exec(line.replace(/\r$/, ""))
    if (match === null) continue
    const text = match[2]!.trim()
    if (!/^\d{1,9}$/.test(text)) return "a malformed Content-Length"
    if (found !== undefined) return "more than one Content-Length"
    found = Number(text)
  }
  if (found === undefined) return "missing Content-Length on a stream"
  if (found > SipMessage.MAX_MESSAGE_BYTES) return "Content-Length too large"
  return found
}

/**
 * Adds `chunk` and returns the messages it completes.
 *
 * @category framing
 */
export const push = (stream: SipStream, chunk: Uint8Array): Pushed => {
  if (stream.broken !== undefined) return { _tag: "Broken", messages: [], detail: stream.broken }
  const joined = new Uint8Array(stream.buffer.length + chunk.length)
  joined.set(stream.buffer, 0)
  joined.set(chunk, stream.buffer.length)
  const messages: Array<Uint8Array> = []
  let offset = 0
  for (;;) {
    offset = SipMessage.skipLeadingBlankLines(joined, offset)
    const end = SipMessage.headerEnd(joined, offset)
    if (end === undefined) {
      if (joined.length - offset > SipMessage.MAX_MESSAGE_BYTES) return breakWith(stream, messages, "headers too large")
      break
    }
    const length = contentLength(decoder.decode(joined.subarray(offset, end.end)))
    if (typeof length === "string") return breakWith(stream, messages, length)
    if (joined.length < end.body + length) break
    messages.push(joined.slice(offset, end.body + length))
    offset = end.body + length
  }
  stream.buffer = joined.slice(offset)
  return { _tag: "Messages", messages }
}

const breakWith = (stream: SipStream, messages: Array<Uint8Array>, detail: string): Pushed => {
  stream.broken = detail
  stream.buffer = new Uint8Array(0)
  return { _tag: "Broken", messages, detail }
}
