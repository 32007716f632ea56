/**
 * Client transactions (RFC 3261 §17.1, with RFC 6026's Accepted state): what a request the
 * engine sent does as responses arrive and time passes — retransmissions over UDP, giving up,
 * ACK for a failure, absorbing retransmitted responses.
 *
 * Owns: one transaction's state machine, pure. `start` and `step` take the time (`now`, ms,
 * any monotonic clock the caller injects) and return the new state and the actions to carry out
 * (`Send` the request or the ACK, `Deliver` a response to the transaction user, `Timeout`,
 * `Terminated`); `deadline` says when to call `step` with a `Tick` next. Timers, as RFC 3261
 * names them (T1 = 500 ms, T2 = 4 s, T4 = 5 s by default):
 *
 * - INVITE: A retransmits from T1, doubling, in Calling over UDP; B (64·T1) times out in
 *   Calling; D (32 s over UDP, 0 over TCP) absorbs retransmitted failures after the ACK; M
 *   (64·T1, RFC 6026) passes retransmitted 2xx to the user (it ACKs them) and then ends.
 * - non-INVITE: E retransmits from T1, doubling up to T2 (at T2 once a provisional came) over
 *   UDP; F (64·T1) times out; K (T4 over UDP, 0 over TCP) absorbs retransmitted finals.
 *
 * A response belongs to the transaction whose branch is its top Via's and whose method is its
 * CSeq's (`matches`, RFC 3261 §17.1.3). The ACK of a failure is built here (§17.1.1.3); the ACK
 * of a 2xx belongs to the dialog, not to the transaction.
 *
 * @since 0.1.0
 */
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"

/**
 * @category models
 */
export interface Timers {
  readonly t1: number
  readonly t2: number
  readonly t4: number
}

/**
 * RFC 3261's defaults (§17.1.1.1, table 4).
 *
 * @category models
 */
export const DEFAULT_TIMERS: Timers = { t1: 500, t2: 4000, t4: 5000 }

/**
 * @category models
 */
export type State = "Calling" | "Trying" | "Proceeding" | "Completed" | "Accepted" | "Terminated"

type Outgoing = Extract<SipMessage.Outgoing, { _tag: "Request" }>

/**
 * @category models
 */
export interface ClientTransaction {
  readonly method: string
  readonly branch: string
  readonly reliable: boolean
  readonly timers: Timers
  readonly request: Outgoing
  readonly state: State
  /** The ACK sent for a failure, re-sent for its retransmissions. */
  readonly ack: Outgoing | undefined
  /** Deadlines (ms on the injected clock); absent when not running. */
  readonly retransmitAt: number | undefined
  readonly retransmitInterval: number
  readonly timeoutAt: number | undefined
  readonly endAt: number | undefined
}

/**
 * @category models
 */
export type Action =
  | { readonly _tag: "Send"; readonly message: Outgoing }
  | { readonly _tag: "Deliver"; readonly response: SipMessage.SipResponse }
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "Terminated" }

/**
 * @category models
 */
export type Event =
  | { readonly _tag: "Response"; readonly response: SipMessage.SipResponse }
  | { readonly _tag: "Tick" }
  | { readonly _tag: "TransportError" }

/**
 * @category models
 */
export interface Stepped {
  readonly transaction: ClientTransaction
  readonly actions: ReadonlyArray<Action>
}

const topViaBranch = (headers: ReadonlyArray<SipMessage.Header>): string | undefined => {
  const top = SipMessage.header({ headers }, "Via")
  if (top === undefined) return undefined
  const via = SipHeaders.parseVia(top)
  return via._tag === "Success" ? SipHeaders.param(via.success.params, "branch") : undefined
}

/**
 * Starts a transaction for `request` (its top Via carries the branch): sends it and arms the
 * timers. `reliable`: TCP (no retransmission).
 *
 * @category constructors
 */
export const start = (
  request: Outgoing,
  options: { readonly reliable: boolean; readonly now: number; readonly timers?: Timers }
): Stepped => {
  const timers = options.timers ?? DEFAULT_TIMERS
  const invite = request.method === "INVITE"
  const transaction: ClientTransaction = {
    method: request.method,
    branch: topViaBranch(request.headers) ?? "",
    reliable: options.reliable,
    timers,
    request,
    state: invite ? "Calling" : "Trying",
    ack: undefined,
    retransmitAt: options.reliable ? undefined : options.now + timers.t1,
    retransmitInterval: timers.t1,
    timeoutAt: options.now + 64 * timers.t1,
    endAt: undefined
  }
  return { transaction, actions: [{ _tag: "Send", message: request }] }
}

/**
 * Whether `response` belongs to the transaction (RFC 3261 §17.1.3).
 *
 * @category matching
 */
export const matches = (transaction: ClientTransaction, response: SipMessage.SipResponse): boolean => {
  const branch = response.via[0] === undefined ? undefined : SipHeaders.param(response.via[0].params, "branch")
  return branch === transaction.branch && response.cseq.method === transaction.method
}

/**
 * When `step` should next be called with a `Tick`; `undefined` when no timer runs.
 *
 * @category timers
 */
export const deadline = (transaction: ClientTransaction): number | undefined => {
  const times = [transaction.retransmitAt, transaction.timeoutAt, transaction.endAt].filter((t) => t !== undefined)
  return times.length === 0 ? undefined : Math.min(...times)
}

/**
 * The ACK of a failure response (RFC 3261 §17.1.1.3): the request's Request-URI, top Via,
 * Route, From, Call-ID and CSeq number; the response's To (with its tag).
 *
 * @category ack
 */
export const ackFor = (request: Outgoing, response: SipMessage.SipResponse): Outgoing => {
  const value = (name: string) => SipMessage.header(request, name)
  const cseq = SipHeaders.parseCSeq(value("CSeq") ?? "")
  const seq = cseq._tag === "Success" ? cseq.success.seq : response.cseq.seq
  return {
    _tag: "Request",
    method: "ACK",
    uri: request.uri,
    headers: [
      { name: "Via", value: SipMessage.headerValues(request, "Via")[0] ?? "" },
      ...SipMessage.headerValues(request, "Route").map((route) => ({ name: "Route", value: route })),
      { name: "Max-Forwards", value: "70" },
      { name: "From", value: value("From") ?? "" },
      { name: "To", value: SipMessage.header(response, "To") ?? "" },
      { name: "Call-ID", value: value("Call-ID") ?? "" },
      { name: "CSeq", value: `${seq} ACK` }
    ]
  }
}

/**
 * The CANCEL of a request sent (RFC 3261 §9.1): its Request-URI, top Via (so the same branch),
 * Route, From, To, Call-ID and CSeq number. Sent as a transaction of its own, once a
 * provisional response has come.
 *
 * @category cancel
 */
export const cancelFor = (request: Outgoing): Outgoing => {
  const value = (name: string) => SipMessage.header(request, name) ?? ""
  const cseq = SipHeaders.parseCSeq(value("CSeq"))
  return {
    _tag: "Request",
    method: "CANCEL",
    uri: request.uri,
    headers: [
      { name: "Via", value: SipMessage.headerValues(request, "Via")[0] ?? "" },
      ...SipMessage.headerValues(request, "Route").map((route) => ({ name: "Route", value: route })),
      { name: "Max-Forwards", value: "70" },
      { name: "From", value: value("From") },
      { name: "To", value: value("To") },
      { name: "Call-ID", value: value("Call-ID") },
      { name: "CSeq", value: `${cseq._tag === "Success" ? cseq.success.seq : 1} CANCEL` }
    ]
  }
}

const terminated = (transaction: ClientTransaction, actions: Array<Action>): Stepped => ({
  transaction: {
    ...transaction,
    state: "Terminated",
    retransmitAt: undefined,
    timeoutAt: undefined,
    endAt: undefined
  },
  actions: [...actions, { _tag: "Terminated" }]
})

const onResponse = (tx: ClientTransaction, response: SipMessage.SipResponse, now: number): Stepped => {
  const status = response.status
  const deliver: Action = { _tag: "Deliver", response }
  if (tx.method === "INVITE") {
    switch (tx.state) {
      case "Calling":
      case "Proceeding": {
        if (status < 200) {
          return {
            transaction: { ...tx, state: "Proceeding", retransmitAt: undefined, timeoutAt: undefined },
            actions: [deliver]
          }
        }
        if (status < 300) {
          return {
            transaction: {
              ...tx,
              state: "Accepted",
              retransmitAt: undefined,
              timeoutAt: undefined,
              endAt: now + 64 * tx.timers.t1
            },
            actions: [deliver]
          }
        }
        const ack = ackFor(tx.request, response)
        const wait = tx.reliable ? 0 : 32_000
        return {
          transaction: {
            ...tx,
            state: "Completed",
            ack,
            retransmitAt: undefined,
            timeoutAt: undefined,
            endAt: now + wait
          },
          actions: [{ _tag: "Send", message: ack }, deliver]
        }
      }
      case "Completed":
        return {
          transaction: tx,
          actions: status >= 300 && tx.ack !== undefined ? [{ _tag: "Send", message: tx.ack }] : []
        }
      case "Accepted":
        return { transaction: tx, actions: status >= 200 && status < 300 ? [deliver] : [] }
      case "Trying":
      case "Terminated":
        return { transaction: tx, actions: [] }
    }
  }
  switch (tx.state) {
    case "Trying":
    case "Proceeding": {
      if (status < 200) {
        return {
          transaction: {
            ...tx,
            state: "Proceeding",
            // RFC 3261 §17.1.2.2: E keeps running, and is reset to T2 when it next fires.
            retransmitAt: tx.retransmitAt
          },
          actions: [deliver]
        }
      }
      return {
        transaction: {
          ...tx,
          state: "Completed",
          retransmitAt: undefined,
          timeoutAt: undefined,
          endAt: now + (tx.reliable ? 0 : tx.timers.t4)
        },
        actions: [deliver]
      }
    }
    case "Calling":
    case "Completed":
    case "Accepted":
    case "Terminated":
      return { transaction: tx, actions: [] }
  }
}

const onTick = (tx: ClientTransaction, now: number): Stepped => {
  if (tx.endAt !== undefined && now >= tx.endAt) return terminated(tx, [])
  if (tx.timeoutAt !== undefined && now >= tx.timeoutAt) return terminated(tx, [{ _tag: "Timeout" }])
  if (tx.retransmitAt !== undefined && now >= tx.retransmitAt) {
    // A doubles without bound (B ends it); E doubles up to T2, and is T2 in Proceeding.
    const interval = tx.method === "INVITE"
      ? tx.retransmitInterval * 2
      : tx.state === "Proceeding"
      ? tx.timers.t2
      : Math.min(tx.retransmitInterval * 2, tx.timers.t2)
    return {
      transaction: { ...tx, retransmitAt: now + interval, retransmitInterval: interval },
      actions: [{ _tag: "Send", message: tx.request }]
    }
  }
  return { transaction: tx, actions: [] }
}

/**
 * Advances the transaction by one event at time `now`.
 *
 * @category transitions
 */
export const step = (transaction: ClientTransaction, event: Event, now: number): Stepped => {
  if (transaction.state === "Terminated") return { transaction, actions: [] }
  switch (event._tag) {
    case "Response":
      return onResponse(transaction, event.response, now)
    case "Tick":
      return onTick(transaction, now)
    case "TransportError":
      return terminated(transaction, [{ _tag: "Timeout" }])
  }
}
