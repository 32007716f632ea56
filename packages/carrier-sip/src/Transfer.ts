/**
 * Following a REFER (RFC 3515): the NOTIFYs of its implicit subscription read (`Event: refer`,
 * the message/sipfrag body's status line, `Subscription-State`) until the target's final
 * status: a 2xx is a transfer done; a failure, a subscription terminated before a final, a
 * REFER refused, or no final in time (60 s by default) is `TransferFailed` with the status and
 * reason, logged. Sending the REFER and answering each NOTIFY 200 is `Call`'s.
 *
 * @since 0.1.0
 */
import { Data, Effect, Queue } from "effect"
import * as InDialog from "./InDialog.ts"
import * as SipMessage from "./SipMessage.ts"

/**
 * A REFER that did not end in a 2xx sipfrag: refused, failed at the target, or no answer.
 *
 * @category errors
 */
export class TransferFailed extends Data.TaggedError("TransferFailed")<{
  readonly status: number | undefined
  readonly reason: string
}> {
  override get message(): string {
    return `transfer failed: ${this.status === undefined ? "" : `${this.status} `}${this.reason}`
  }
}

/**
 * What one NOTIFY says: the sipfrag's status (none when it has no status line) and whether
 * the subscription ended.
 *
 * @category models
 */
export interface Notify {
  readonly status: number | undefined
  readonly reason: string
  readonly terminated: boolean
}

/**
 * A NOTIFY of a REFER's subscription; `undefined` for another event package.
 *
 * @category decoding
 */
export const readNotify = (request: SipMessage.SipRequest): Notify | undefined => {
  const event = (SipMessage.header(request, "Event") ?? "").split(";")[0]!.trim().toLowerCase()
  if (event !== "refer") return undefined
  const frag = InDialog.sipfrag(request.body)
  const terminated = (SipMessage.header(request, "Subscription-State") ?? "").trim().toLowerCase()
    .startsWith("terminated")
  return { status: frag?.status, reason: frag?.reason ?? "the subscription ended", terminated }
}

/**
 * Sends the REFER (`refer`) and follows `notifies` to the target's final status.
 *
 * @category transfer
 */
export const follow = (
  refer: Effect.Effect<SipMessage.SipResponse, TransferFailed>,
  notifies: Queue.Dequeue<Notify>,
  label: string,
  timeoutMs = 60_000
): Effect.Effect<{ readonly status: number; readonly reason: string }, TransferFailed> => {
  const fail = (status: number | undefined, reason: string) =>
    Effect.andThen(
      Effect.logWarning(`${label} failed: ${status === undefined ? "" : `${status} `}${reason}`),
      Effect.fail(new TransferFailed({ status, reason }))
    )
  const following = Effect.gen(function*() {
    const response = yield* refer
    if (response.status >= 300) return yield* fail(response.status, response.reason)
    while (true) {
      const notify = yield* Queue.take(notifies)
      if (notify.status !== undefined && notify.status >= 200 && notify.status < 300) {
        return { status: notify.status, reason: notify.reason }
      }
      if ((notify.status !== undefined && notify.status >= 300) || notify.terminated) {
        return yield* fail(notify.status, notify.reason)
      }
    }
  })
  return Effect.raceFirst(
    following,
    Effect.andThen(Effect.sleep(timeoutMs), fail(undefined, "no final NOTIFY in time"))
  )
}
