/**
 * SIPp's messages trace (`-trace_msg`), read back: each message it sent or received, and those
 * of one call (by Call-ID), so that a check says what the trunk saw.
 *
 * @since 0.1.0
 */

/**
 * @category models
 */
export interface Traced {
  readonly direction: "sent" | "received"
  readonly text: string
  /** The request line or status line. */
  readonly startLine: string
  readonly callId: string | undefined
}

/**
 * The messages of a trace, in order.
 *
 * @category constructors
 */
export const messages = (trace: string): ReadonlyArray<Traced> =>
  trace.split(/^-{20,}.*$/m).flatMap((block) => {
    const head = /^\s*(?:UDP|TCP) message (sent|received)[^\n]*\n\s*\n/.exec(block)
    if (head === null) return []
    const text = block.slice(head[0].length).trim()
    return [
      {
        direction: head[1] === "sent" ? "sent" : "received",
        text,
        startLine: text.split(/\r?\n/)[0] ?? "",
        callId: /^(?:Call-ID|i)\s*:\s*(\S+)/im.exec(text)?.[1]
      } satisfies Traced
    ]
  })

/**
 * The messages of the call whose INVITE went to `number` (the Request-URI's user part).
 *
 * @category constructors
 */
export const ofNumber = (all: ReadonlyArray<Traced>, number: string): ReadonlyArray<Traced> => {
  const invite = all.find((m) => m.startLine.startsWith(`INVITE sip:${number}@`))
  return invite === undefined ? [] : all.filter((m) => m.callId === invite.callId)
}

/**
 * The start lines of `call`, marked `>` sent and `<` received, as a one-line summary.
 *
 * @category encoding
 */
export const summary = (call: ReadonlyArray<Traced>): string =>
  call.map((m) => `${m.direction === "sent" ? ">" : "<"} ${m.startLine.replace(/ SIP\/2\.0$/, "")}`).join(", ")
