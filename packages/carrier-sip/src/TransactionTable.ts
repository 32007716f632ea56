/**
 * The transaction layer of one SIP endpoint (RFC 3261 §17): every client and server transaction
 * in progress, which one a message belongs to, and one deadline for all their timers.
 *
 * Owns: client transactions keyed by their branch and method (a CANCEL shares its INVITE's
 * branch), server transactions keyed by `ServerTransaction.keyOf` (or, for RFC 2543 peers with
 * no magic cookie, by Call-ID, CSeq number, From tag and sent-by); what happens to a message
 * that arrives:
 *
 * - a response goes to its client transaction (`Response` for the user); one matching none is
 *   `Stray`;
 * - a request that matches a server transaction is absorbed (its retransmission, the answer
 *   re-sent; the ACK of a failure); the ACK of a 2xx, which has a branch of its own, goes to the
 *   INVITE's transaction by Call-ID, CSeq number and From tag and is passed on once; an ACK
 *   matching nothing is passed on (`Request` without a key, for the dialog layer);
 * - a CANCEL is a non-INVITE server transaction of its own matched to the request with its
 *   branch (RFC 3261 §9.2): answered 200, and its INVITE 487 when that has no final answer yet
 *   (`Cancelled` tells the user); 481 when it matches nothing;
 * - any other request starts a server transaction (`Request` with its key); an INVITE is
 *   answered 100 at once (§17.2.1).
 *
 * Pure: every function takes `now` (ms, the caller's clock) and returns the new table and the
 * actions to carry out (`Send` a message to a peer, and what to tell the user). `deadline` is
 * the earliest timer of all; `tick` at that time runs every timer that is due. Transactions that
 * end are removed.
 *
 * @since 0.1.0
 */
import * as ClientTransaction from "./ClientTransaction.ts"
import * as ServerTransaction from "./ServerTransaction.ts"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>
type OutgoingResponse = Extract<SipMessage.Outgoing, { _tag: "Response" }>

/**
 * @category models
 */
export interface ClientEntry {
  readonly transaction: ClientTransaction.ClientTransaction
  readonly destination: Peer
}

/**
 * @category models
 */
export interface ServerEntry {
  readonly transaction: ServerTransaction.ServerTransaction
  /** The request that started it. */
  readonly request: SipMessage.SipRequest
  /** Where its responses go (`ViaRouting.responseTarget`). */
  readonly replyTo: Peer
  /** The To tag of the answers the table makes itself (487, and 200 to a CANCEL). */
  readonly tag: string
}

/**
 * @category models
 */
export interface TransactionTable {
  readonly clients: ReadonlyMap<string, ClientEntry>
  readonly servers: ReadonlyMap<string, ServerEntry>
}

/**
 * What to carry out. `Response`, `ClientTimeout` and `ClientEnded` concern the client
 * transaction `key`; `Request`, `Cancelled` and `ServerTimeout` the user of server transactions.
 *
 * @category models
 */
export type Action =
  /** `key`: the transaction whose message it is (for `transportError`). */
  | { readonly _tag: "Send"; readonly key: string; readonly message: SipMessage.Outgoing; readonly destination: Peer }
  | { readonly _tag: "Response"; readonly key: string; readonly response: SipMessage.SipResponse }
  /** Timer B or F fired, or the transport failed: no final response will come. */
  | { readonly _tag: "ClientTimeout"; readonly key: string }
  | { readonly _tag: "ClientEnded"; readonly key: string }
  /** A new request (`key` its server transaction), the ACK of a 2xx (`key` its INVITE's), or an ACK matching nothing (no key). */
  | { readonly _tag: "Request"; readonly key: string | undefined; readonly request: SipMessage.SipRequest }
  /** The INVITE `key` was cancelled and answered 487. */
  | { readonly _tag: "Cancelled"; readonly key: string }
  /** No ACK came for the final answer of the INVITE `key` (Timer H, or L for a 2xx). */
  | { readonly _tag: "ServerTimeout"; readonly key: string }
  | { readonly _tag: "ServerEnded"; readonly key: string }
  /** A response no client transaction is waiting for. */
  | { readonly _tag: "Stray"; readonly response: SipMessage.SipResponse }

/**
 * @category models
 */
export interface Stepped {
  readonly table: TransactionTable
  readonly actions: ReadonlyArray<Action>
}

/**
 * @category constructors
 */
export const empty: TransactionTable = { clients: new Map(), servers: new Map() }

/**
 * The key of a client transaction: its branch and method.
 *
 * @category keys
 */
export const clientKey = (branch: string, method: string): string => `${branch}|${method}`

/**
 * The key of the server transaction `request` belongs to (an ACK: its INVITE's).
 *
 * @category keys
 */
export const serverKey = (request: SipMessage.SipRequest): string => {
  const key = ServerTransaction.keyOf(request)
  if (key !== undefined) return key
  const via = request.via[0]!
  const method = request.method === "ACK" ? "INVITE" : request.method
  const fromTag = SipHeaders.param(request.from.params, "tag") ?? ""
  return `rfc2543 ${request.callId} ${request.cseq.seq} ${fromTag}|${via.host}:${via.port ?? 5060}|${method}`
}

/** The key without its method: what a CANCEL shares with the request it cancels. */
const withoutMethod = (key: string): string => key.slice(0, key.lastIndexOf("|"))

/**
 * The earliest timer of all transactions; `undefined` when none runs.
 *
 * @category timers
 */
export const deadline = (table: TransactionTable): number | undefined => {
  let earliest: number | undefined
  const consider = (at: number | undefined) => {
    if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at
  }
  for (const entry of table.clients.values()) consider(ClientTransaction.deadline(entry.transaction))
  for (const entry of table.servers.values()) consider(ServerTransaction.deadline(entry.transaction))
  return earliest
}

const applyClient = (
  table: TransactionTable,
  key: string,
  entry: ClientEntry,
  stepped: ClientTransaction.Stepped
): Stepped => {
  const clients = new Map(table.clients)
  const actions: Array<Action> = []
  let ended = false
  for (const action of stepped.actions) {
    switch (action._tag) {
      case "Send":
        actions.push({ _tag: "Send", key, message: action.message, destination: entry.destination })
        break
      case "Deliver":
        actions.push({ _tag: "Response", key, response: action.response })
        break
      case "Timeout":
        actions.push({ _tag: "ClientTimeout", key })
        break
      case "Terminated":
        ended = true
        actions.push({ _tag: "ClientEnded", key })
    }
  }
  if (ended) clients.delete(key)
  else clients.set(key, { ...entry, transaction: stepped.transaction })
  return { table: { ...table, clients }, actions }
}

const applyServer = (
  table: TransactionTable,
  key: string,
  entry: ServerEntry,
  stepped: ServerTransaction.Stepped
): Stepped => {
  const servers = new Map(table.servers)
  const actions: Array<Action> = []
  let ended = false
  for (const action of stepped.actions) {
    switch (action._tag) {
      case "Send":
        actions.push({ _tag: "Send", key, message: action.response, destination: entry.replyTo })
        break
      case "Deliver":
        actions.push({ _tag: "Request", key, request: action.request })
        break
      case "Timeout":
        if (entry.transaction.method === "INVITE") actions.push({ _tag: "ServerTimeout", key })
        break
      case "Terminated":
        ended = true
        actions.push({ _tag: "ServerEnded", key })
    }
  }
  if (ended) servers.delete(key)
  else servers.set(key, { ...entry, transaction: stepped.transaction })
  return { table: { ...table, servers }, actions }
}

const andThen = (first: Stepped, next: (table: TransactionTable) => Stepped): Stepped => {
  const second = next(first.table)
  return { table: second.table, actions: [...first.actions, ...second.actions] }
}

/**
 * Starts a client transaction for `request` (its top Via carries a fresh branch) sent to
 * `destination`: over TCP nothing is retransmitted.
 *
 * @category client
 */
export const sendRequest = (
  table: TransactionTable,
  request: OutgoingRequest,
  destination: Peer,
  options: { readonly now: number; readonly timers?: ClientTransaction.Timers }
): Stepped & { readonly key: string } => {
  const started = ClientTransaction.start(request, {
    reliable: destination.transport === "TCP",
    now: options.now,
    ...(options.timers === undefined ? {} : { timers: options.timers })
  })
  const key = clientKey(started.transaction.branch, started.transaction.method)
  return { key, ...applyClient(table, key, { transaction: started.transaction, destination }, started) }
}

/**
 * A response received: to its client transaction, or `Stray`.
 *
 * @category client
 */
export const receiveResponse = (table: TransactionTable, response: SipMessage.SipResponse, now: number): Stepped => {
  const top = response.via[0]
  const branch = top === undefined ? undefined : SipHeaders.param(top.params, "branch")
  const key = branch === undefined ? undefined : clientKey(branch, response.cseq.method)
  const entry = key === undefined ? undefined : table.clients.get(key)
  if (key === undefined || entry === undefined) return { table, actions: [{ _tag: "Stray", response }] }
  return applyClient(table, key, entry, ClientTransaction.step(entry.transaction, { _tag: "Response", response }, now))
}

const tagOf = (entry: ServerEntry): string => {
  const to = entry.transaction.last === undefined ? undefined : SipMessage.header(entry.transaction.last, "To")
  const parsed = to === undefined ? undefined : SipHeaders.parseNameAddr(to, "To")
  const tag = parsed?._tag === "Success" ? SipHeaders.param(parsed.success.params, "tag") : undefined
  return tag ?? entry.tag
}

const answer = (request: SipMessage.SipRequest, status: number, tag: string): OutgoingResponse =>
  SipMessage.response(request, status, SipMessage.REASONS[status] ?? "", { toTag: tag }) as OutgoingResponse

/**
 * Answers server transaction `key`: a provisional, then one final (later ones are ignored).
 *
 * @category server
 */
export const respond = (table: TransactionTable, key: string, response: OutgoingResponse, now: number): Stepped => {
  const entry = table.servers.get(key)
  if (entry === undefined) return { table, actions: [] }
  return applyServer(table, key, entry, ServerTransaction.step(entry.transaction, { _tag: "Respond", response }, now))
}

const start = (
  table: TransactionTable,
  key: string,
  request: SipMessage.SipRequest,
  options: ReceiveOptions
): { table: TransactionTable; entry: ServerEntry } => {
  const transaction = ServerTransaction.start(request, {
    reliable: options.source.transport === "TCP",
    ...(options.timers === undefined ? {} : { timers: options.timers })
  })
  const entry: ServerEntry = { transaction, request, replyTo: options.replyTo, tag: options.tag }
  const servers = new Map(table.servers)
  servers.set(key, entry)
  return { table: { ...table, servers }, entry }
}

const ackOf2xx = (table: TransactionTable, ack: SipMessage.SipRequest): [string, ServerEntry] | undefined => {
  const fromTag = SipHeaders.param(ack.from.params, "tag")
  for (const [key, entry] of table.servers) {
    const invite = entry.request
    if (
      entry.transaction.state === "Accepted" && invite.method === "INVITE" && invite.callId === ack.callId &&
      invite.cseq.seq === ack.cseq.seq && SipHeaders.param(invite.from.params, "tag") === fromTag
    ) return [key, entry]
  }
  return undefined
}

const cancel = (table: TransactionTable, key: string, request: SipMessage.SipRequest, options: ReceiveOptions) => {
  const prefix = withoutMethod(key)
  const target = [...table.servers].find(([k, entry]) =>
    withoutMethod(k) === prefix && entry.request.method !== "CANCEL"
  )
  const started = start(table, key, request, options)
  const { now } = options
  if (target === undefined) {
    return respond(started.table, key, answer(request, 481, options.tag), now)
  }
  const [inviteKey, invite] = target
  const tag = tagOf(invite)
  const ok = respond(started.table, key, answer(request, 200, tag), now)
  if (invite.request.method !== "INVITE" || invite.transaction.state !== "Proceeding") return ok
  return andThen(ok, (table) => {
    const terminated = respond(table, inviteKey, answer(invite.request, 487, tag), now)
    return { table: terminated.table, actions: [...terminated.actions, { _tag: "Cancelled", key: inviteKey }] }
  })
}

/**
 * How a request was received: from where, where its answers go, a fresh To tag for the answers
 * the table makes itself, the time.
 *
 * @category server
 */
export interface ReceiveOptions {
  readonly source: Peer
  readonly replyTo: Peer
  readonly tag: string
  readonly now: number
  readonly timers?: ClientTransaction.Timers
}

/**
 * A request received (its top Via already stamped, `ViaRouting.stamp`).
 *
 * @category server
 */
export const receiveRequest = (
  table: TransactionTable,
  request: SipMessage.SipRequest,
  options: ReceiveOptions
): Stepped => {
  const key = serverKey(request)
  const existing = table.servers.get(key)
  const event: ServerTransaction.Event = { _tag: "Request", request }
  if (existing !== undefined) {
    return applyServer(table, key, existing, ServerTransaction.step(existing.transaction, event, options.now))
  }
  if (request.method === "ACK") {
    const match = ackOf2xx(table, request)
    if (match === undefined) return { table, actions: [{ _tag: "Request", key: undefined, request }] }
    const [inviteKey, invite] = match
    return applyServer(table, inviteKey, invite, ServerTransaction.step(invite.transaction, event, options.now))
  }
  if (request.method === "CANCEL") return cancel(table, key, request, options)
  const started = start(table, key, request, options)
  const deliver: Action = { _tag: "Request", key, request }
  if (request.method !== "INVITE") return { table: started.table, actions: [deliver] }
  // The 100 first: the user's answers come after it.
  const trying = respond(started.table, key, answer(request, 100, options.tag), options.now)
  return { table: trying.table, actions: [...trying.actions, deliver] }
}

/**
 * Runs every timer due at `now`.
 *
 * @category timers
 */
export const tick = (table: TransactionTable, now: number): Stepped => {
  let current: Stepped = { table, actions: [] }
  for (const [key, entry] of table.clients) {
    const at = ClientTransaction.deadline(entry.transaction)
    if (at === undefined || at > now) continue
    current = andThen(current, (t) => {
      const live = t.clients.get(key)
      return live === undefined ?
        { table: t, actions: [] } :
        applyClient(t, key, live, ClientTransaction.step(live.transaction, { _tag: "Tick" }, now))
    })
  }
  for (const [key, entry] of table.servers) {
    const at = ServerTransaction.deadline(entry.transaction)
    if (at === undefined || at > now) continue
    current = andThen(current, (t) => {
      const live = t.servers.get(key)
      return live === undefined ?
        { table: t, actions: [] } :
        applyServer(t, key, live, ServerTransaction.step(live.transaction, { _tag: "Tick" }, now))
    })
  }
  return current
}

/**
 * A message of transaction `key` (client or server) could not be sent: it ends (a client's
 * user gets `ClientTimeout`).
 *
 * @category timers
 */
export const transportError = (table: TransactionTable, key: string, now: number): Stepped => {
  const client = table.clients.get(key)
  if (client !== undefined) {
    return applyClient(table, key, client, ClientTransaction.step(client.transaction, { _tag: "TransportError" }, now))
  }
  const server = table.servers.get(key)
  if (server !== undefined) {
    return applyServer(table, key, server, ServerTransaction.step(server.transaction, { _tag: "TransportError" }, now))
  }
  return { table, actions: [] }
}
