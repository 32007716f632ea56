/**
 * Server transactions (RFC 3261 §17.2, with RFC 6026's Accepted state): what a request the
 * trunk sent does as the engine answers it — retransmitted requests answered again, finals
 * retransmitted over UDP until the ACK, giving up when no ACK comes.
 *
 * Owns: one transaction's state machine, pure, like `ClientTransaction`: `start` and `step` take
 * the injected clock's `now` (ms) and return the new state and actions (`Send` a response,
 * `Deliver` the ACK of a 2xx to the user, `Timeout` when no ACK came, `Terminated`);
 * `deadline` says when to `Tick` next. The user answers with a `Respond` event.
 *
 * - INVITE: Proceeding re-sends the last provisional for each retransmitted INVITE. A failure
 *   moves to Completed: G re-sends it from T1, doubling up to T2, over UDP; H (64·T1) gives up
 *   (`Timeout`); the ACK moves to Confirmed, where I (T4 over UDP, 0 over TCP) absorbs the last
 *   ACKs. A 2xx moves to Accepted (L = 64·T1); retransmitting the 2xx until its ACK (T1 doubling
 *   up to T2), which RFC 3261 §13.3.1.4 gives the UAS core, is done here too, and the ACK is
 *   delivered; no ACK by L is a `Timeout` (the user then ends the call with BYE).
 * - non-INVITE: Trying absorbs retransmissions; a provisional moves to Proceeding (re-sent for
 *   each retransmission); the final to Completed (re-sent for each), ending after J (64·T1 over
 *   UDP, 0 over TCP).
 *
 * `keyOf` names the transaction a request belongs to (RFC 3261 §17.2.3: branch, sent-by and
 * method, an ACK belonging to its INVITE).
 *
 * @since 0.1.0
 */
import * as ClientTransaction from "./ClientTransaction.ts"
import * as SipHeaders from "./SipHeaders.ts"
import type * as SipMessage from "./SipMessage.ts"

type Response = Extract<SipMessage.Outgoing, { _tag: "Response" }>

/**
 * @category models
 */
export type State = "Trying" | "Proceeding" | "Completed" | "Confirmed" | "Accepted" | "Terminated"

/**
 * @category models
 */
export interface ServerTransaction {
  readonly method: string
  readonly reliable: boolean
  readonly timers: ClientTransaction.Timers
  readonly state: State
  /** The last response sent, re-sent for retransmitted requests and on G. */
  readonly last: Response | undefined
  readonly retransmitAt: number | undefined
  readonly retransmitInterval: number
  readonly timeoutAt: number | undefined
  readonly endAt: number | undefined
}

/**
 * @category models
 */
export type Action =
  | { readonly _tag: "Send"; readonly response: Response }
  | { readonly _tag: "Deliver"; readonly request: SipMessage.SipRequest }
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "Terminated" }

/**
 * @category models
 */
export type Event =
  /** The same request again, or its ACK. */
  | { readonly _tag: "Request"; readonly request: SipMessage.SipRequest }
  | { readonly _tag: "Respond"; readonly response: Response }
  | { readonly _tag: "Tick" }
  | { readonly _tag: "TransportError" }

/**
 * @category models
 */
export interface Stepped {
  readonly transaction: ServerTransaction
  readonly actions: ReadonlyArray<Action>
}

/**
 * The transaction a request belongs to: its top Via's branch and sent-by, and its method (an
 * ACK's is INVITE). `undefined` for a request with no RFC 3261 branch (RFC 2543 peers), which
 * the caller then matches by dialog.
 *
 * @category matching
 */
export const keyOf = (request: SipMessage.SipRequest): string | undefined => {
  const via = request.via[0]
  if (via === undefined) return undefined
  const branch = SipHeaders.param(via.params, "branch")
  if (branch === undefined || !branch.startsWith(SipHeaders.BRANCH_COOKIE)) return undefined
  const method = request.method === "ACK" ? "INVITE" : request.method
  return `${branch}|${via.host}:${via.port ?? 5060}|${method}`
}

/**
 * A transaction for a request just received: nothing is sent until the user responds.
 *
 * @category constructors
 */
export const start = (
  request: SipMessage.SipRequest,
  options: { readonly reliable: boolean; readonly timers?: ClientTransaction.Timers }
): ServerTransaction => ({
  method: request.method,
  reliable: options.reliable,
  timers: options.timers ?? ClientTransaction.DEFAULT_TIMERS,
  state: request.method === "INVITE" ? "Proceeding" : "Trying",
  last: undefined,
  retransmitAt: undefined,
  retransmitInterval: 0,
  timeoutAt: undefined,
  endAt: undefined
})

/**
 * When `step` should next be called with a `Tick`.
 *
 * @category timers
 */
export const deadline = (transaction: ServerTransaction): number | undefined => {
  const times = [transaction.retransmitAt, transaction.timeoutAt, transaction.endAt].filter((t) => t !== undefined)
  return times.length === 0 ? undefined : Math.min(...times)
}

const terminated = (tx: ServerTransaction, actions: Array<Action>): Stepped => ({
  transaction: { ...tx, state: "Terminated", retransmitAt: undefined, timeoutAt: undefined, endAt: undefined },
  actions: [...actions, { _tag: "Terminated" }]
})

const resendLast = (tx: ServerTransaction): Stepped => ({
  transaction: tx,
  actions: tx.last === undefined ? [] : [{ _tag: "Send", response: tx.last }]
})

const onRespond = (tx: ServerTransaction, response: Response, now: number): Stepped => {
  const send: Action = { _tag: "Send", response }
  const t1 = tx.timers.t1
  if (tx.state !== "Trying" && tx.state !== "Proceeding") return { transaction: tx, actions: [] }
  if (response.status < 200) return { transaction: { ...tx, state: "Proceeding", last: response }, actions: [send] }
  if (tx.method === "INVITE") {
    const retransmit = tx.reliable ? undefined : now + t1
    if (response.status < 300) {
      return {
        transaction: {
          ...tx,
          state: "Accepted",
          last: response,
          retransmitAt: retransmit,
          retransmitInterval: t1,
          timeoutAt: now + 64 * t1
        },
        actions: [send]
      }
    }
    return {
      transaction: {
        ...tx,
        state: "Completed",
        last: response,
        retransmitAt: retransmit,
        retransmitInterval: t1,
        timeoutAt: now + 64 * t1
      },
      actions: [send]
    }
  }
  return {
    transaction: { ...tx, state: "Completed", last: response, endAt: now + (tx.reliable ? 0 : 64 * t1) },
    actions: [send]
  }
}

const onRequest = (tx: ServerTransaction, request: SipMessage.SipRequest, now: number): Stepped => {
  const ack = request.method === "ACK"
  switch (tx.state) {
    case "Trying":
      return { transaction: tx, actions: [] }
    case "Proceeding":
      return ack ? { transaction: tx, actions: [] } : resendLast(tx)
    case "Completed":
      if (!ack) return resendLast(tx)
      if (tx.method !== "INVITE") return { transaction: tx, actions: [] }
      return {
        transaction: {
          ...tx,
          state: "Confirmed",
          retransmitAt: undefined,
          timeoutAt: undefined,
          endAt: now + (tx.reliable ? 0 : tx.timers.t4)
        },
        actions: []
      }
    case "Accepted":
      if (!ack) return resendLast(tx)
      if (tx.retransmitAt === undefined && tx.timeoutAt === undefined) return { transaction: tx, actions: [] }
      // The 2xx's ACK: stop re-sending, pass it on, linger for L to absorb retransmissions.
      return {
        transaction: { ...tx, retransmitAt: undefined, timeoutAt: undefined, endAt: now + 64 * tx.timers.t1 },
        actions: [{ _tag: "Deliver", request }]
      }
    case "Confirmed":
    case "Terminated":
      return { transaction: tx, actions: [] }
  }
}

const onTick = (tx: ServerTransaction, now: number): Stepped => {
  if (tx.endAt !== undefined && now >= tx.endAt) return terminated(tx, [])
  if (tx.timeoutAt !== undefined && now >= tx.timeoutAt) return terminated(tx, [{ _tag: "Timeout" }])
  if (tx.retransmitAt !== undefined && now >= tx.retransmitAt && tx.last !== undefined) {
    const interval = Math.min(tx.retransmitInterval * 2, tx.timers.t2)
    return {
      transaction: { ...tx, retransmitAt: now + interval, retransmitInterval: interval },
      actions: [{ _tag: "Send", response: tx.last }]
    }
  }
  return { transaction: tx, actions: [] }
}

/**
 * Advances the transaction by one event at time `now`.
 *
 * @category transitions
 */
export const step = (transaction: ServerTransaction, event: Event, now: number): Stepped => {
  if (transaction.state === "Terminated") return { transaction, actions: [] }
  switch (event._tag) {
    case "Request":
      return onRequest(transaction, event.request, now)
    case "Respond":
      return onRespond(transaction, event.response, now)
    case "Tick":
      return onTick(transaction, now)
    case "TransportError":
      return terminated(transaction, [{ _tag: "Timeout" }])
  }
}
