/**
 * One SIP endpoint: a `SipTransport` and the `TransactionTable` on it, run on Effect's `Clock`.
 *
 * Owns: sending requests as client transactions (`request`: the final response, provisionals
 * and retransmitted 2xx reported on the way; a Via with a fresh branch added when the request
 * has none), answering received requests as server transactions (`respond`, or the
 * `Incoming`'s own), handing each new request to the `handler` (on a fiber of its own: a
 * handler that fails or dies has its request answered 500), the one timer (a fiber sleeping until the table's earliest deadline, woken
 * when a message changes the table), routing responses by the stamped top Via
 * (`ViaRouting.responseTarget`), and stateless sends (`send`: the ACK of a 2xx, which is no
 * transaction's).
 *
 * What the table does on its own: 100 to a new INVITE, retransmissions absorbed and answered
 * again, CANCEL answered 200 (487 to its INVITE, `Incoming.cancelled` completing) or 481,
 * the ACK of a failure absorbed. A send that fails ends its transaction (a client's `request`
 * fails `Unreachable`).
 *
 * Does not own dialogs, authentication, REGISTER, SDP or RTP: those sit above, on `request`,
 * `respond` and the handler. Scoped: the transport, the timer and handlers end with the scope.
 *
 * @since 0.1.0
 */
import { Clock, Data, Deferred, Effect, FiberSet, Queue, Result } from "effect"
import type { Scope } from "effect"
import { randomBytes } from "node:crypto"
import type * as ClientTransaction from "./ClientTransaction.ts"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"
import * as SipTransport from "./SipTransport.ts"
import * as TransactionTable from "./TransactionTable.ts"
import * as ViaRouting from "./ViaRouting.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>
type OutgoingResponse = Extract<SipMessage.Outgoing, { _tag: "Response" }>

/**
 * A request for the handler: a new one (`key` its server transaction, to `respond` to), the ACK
 * of a 2xx sent (`key` its INVITE's), or an ACK matching no transaction (no `key`).
 *
 * @category models
 */
export interface Incoming {
  readonly key: string | undefined
  readonly request: SipMessage.SipRequest
  readonly source: Peer
  /** The To tag of this endpoint's answers (the table's 487 uses it too). */
  readonly tag: string
  /** Completes when a CANCEL ended this INVITE (already answered 487). */
  readonly cancelled: Effect.Effect<void>
  /** `SipEndpoint.respond` for this request (nothing for an ACK). */
  readonly respond: (response: OutgoingResponse) => Effect.Effect<void>
}

/**
 * No final response came: `Timeout` (Timer B or F), or `Unreachable` (the request could not be
 * sent, e.g. a TCP connection refused).
 *
 * @category errors
 */
export class SipRequestError extends Data.TaggedError("SipRequestError")<{
  readonly reason: "Timeout" | "Unreachable"
  readonly detail: string
}> {
  override get message(): string {
    return this.detail
  }
}

/**
 * @category models
 */
export interface RequestOptions {
  /** Each provisional response (1xx). */
  readonly onProvisional?: (response: SipMessage.SipResponse) => Effect.Effect<void>
  /** Each 2xx after the first (the INVITE's retransmitted 2xx, each to be ACKed again). */
  readonly onRetransmission?: (response: SipMessage.SipResponse) => Effect.Effect<void>
}

/**
 * @category models
 */
export interface SipEndpoint {
  /** The address and port listened on (UDP and TCP). */
  readonly host: string
  readonly port: number
  /** `request` with a top Via (sent-by this endpoint, a fresh branch, `rport`) when it has none. */
  readonly prepare: (request: OutgoingRequest, transport: Peer["transport"]) => OutgoingRequest
  /** Sends `request` as a client transaction; succeeds with its final response. */
  readonly request: (
    request: OutgoingRequest,
    destination: Peer,
    options?: RequestOptions
  ) => Effect.Effect<SipMessage.SipResponse, SipRequestError>
  /** Answers a received request: provisionals, then one final (later ones are ignored). */
  readonly respond: (key: string, response: OutgoingResponse) => Effect.Effect<void>
  /** Sends a message outside any transaction (the ACK of a 2xx), with a Via added if none. */
  readonly send: (
    message: SipMessage.Outgoing,
    destination: Peer
  ) => Effect.Effect<void, SipTransport.SipTransportError>
}

/**
 * @category models
 */
export interface Options extends SipTransport.Options {
  /** The host put in Via (`SIP_PUBLIC_ADDRESS`); default the listening host. */
  readonly publicAddress?: string
  readonly handler: (incoming: Incoming) => Effect.Effect<void>
  readonly timers?: ClientTransaction.Timers
}

interface Pending {
  readonly final: Deferred.Deferred<SipMessage.SipResponse, SipRequestError>
  readonly options: RequestOptions
  unreachable: string | undefined
}

const random = (bytes: number) => randomBytes(bytes).toString("hex")

const viaOf = (message: SipMessage.Outgoing): SipHeaders.Via | undefined => {
  const parsed = SipHeaders.parseVia(SipMessage.header(message, "Via") ?? "")
  return Result.isSuccess(parsed) ? parsed.success : undefined
}

/**
 * The answer to `incoming` with `status` (the reason phrase RFC 3261's unless given), tagged
 * with the endpoint's tag.
 *
 * @category responses
 */
export const answer = (
  incoming: Incoming,
  status: number,
  options: {
    readonly reason?: string
    readonly headers?: ReadonlyArray<SipMessage.Header>
    readonly body?: Uint8Array
  } = {}
): OutgoingResponse =>
  SipMessage.response(incoming.request, status, options.reason ?? SipMessage.REASONS[status] ?? "", {
    toTag: incoming.tag,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.body === undefined ? {} : { body: options.body })
  }) as OutgoingResponse

/**
 * An endpoint listening on `options.host:port` for the scope.
 *
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<SipEndpoint, SipTransport.SipTransportError, Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* SipTransport.make(options)
    const sentBy = `${ViaRouting.uriHost(options.publicAddress ?? transport.host)}:${transport.port}`
    const fibers = yield* FiberSet.make<void>()
    const wake = yield* Queue.sliding<void>(1)
    const pending = new Map<string, Pending>()
    const cancels = new Map<string, Deferred.Deferred<void>>()
    let table = TransactionTable.empty
    const timers = options.timers === undefined ? {} : { timers: options.timers }

    const prepare = (request: OutgoingRequest, via: Peer["transport"]): OutgoingRequest =>
      SipMessage.header(request, "Via") !== undefined ? request : {
        ...request,
        headers: [
          { name: "Via", value: `SIP/2.0/${via} ${sentBy};branch=${SipHeaders.BRANCH_COOKIE}${random(8)};rport` },
          ...request.headers
        ]
      }

    /**
     * Steps the table (synchronously: nothing else sees it half-done) and carries out the actions;
     * `received`: where the request that caused them came from, and the tag for its answers.
     */
    const step = (
      f: (table: TransactionTable.TransactionTable, now: number) => TransactionTable.Stepped,
      received?: { readonly source: Peer; readonly tag: string }
    ): Effect.Effect<void> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const stepped = f(table, now)
        table = stepped.table
        Queue.offerUnsafe(wake, undefined)
        yield* Effect.forEach(stepped.actions, (action) => carryOut(action, received), { discard: true })
      })

    const fork = (effect: Effect.Effect<void>) => Effect.asVoid(FiberSet.run(fibers, effect))

    const handle = (incoming: Incoming): Effect.Effect<void> =>
      options.handler(incoming).pipe(
        Effect.catchCause((cause) =>
          Effect.andThen(
            Effect.logWarning(`The handler of a SIP ${incoming.request.method} failed`, cause),
            incoming.respond(answer(incoming, 500))
          )
        )
      )

    const carryOut = (
      action: TransactionTable.Action,
      received: { readonly source: Peer; readonly tag: string } | undefined
    ): Effect.Effect<void> => {
      switch (action._tag) {
        case "Send":
          return transport.send(action.message, action.destination).pipe(
            Effect.catch((error) => {
              // A response over TCP whose connection has closed: a new one, as its Via says.
              const via = action.message._tag === "Response" ? viaOf(action.message) : undefined
              const again = via === undefined ? undefined : ViaRouting.reconnectTarget(via, action.destination)
              return again === undefined ? Effect.fail(error) : transport.send(action.message, again)
            }),
            Effect.catch((error) =>
              Effect.andThen(Effect.logWarning(`SIP: ${error.detail}`), () => {
                const waiting = pending.get(action.key)
                if (waiting !== undefined) waiting.unreachable = error.detail
                return step((t, now) => TransactionTable.transportError(t, action.key, now))
              })
            )
          )
        case "Response": {
          const waiting = pending.get(action.key)
          if (waiting === undefined) return Effect.void
          const { response } = action
          if (response.status < 200) {
            return waiting.options.onProvisional === undefined
              ? Effect.void
              : fork(waiting.options.onProvisional(response))
          }
          return Effect.flatMap(
            Deferred.succeed(waiting.final, response),
            (first) =>
              first || waiting.options.onRetransmission === undefined || response.status >= 300
                ? Effect.void
                : fork(waiting.options.onRetransmission(response))
          )
        }
        case "ClientTimeout": {
          const waiting = pending.get(action.key)
          if (waiting === undefined) return Effect.void
          const error = waiting.unreachable === undefined
            ? new SipRequestError({ reason: "Timeout", detail: "no final response in time" })
            : new SipRequestError({ reason: "Unreachable", detail: waiting.unreachable })
          return Effect.asVoid(Deferred.fail(waiting.final, error))
        }
        case "ClientEnded":
          return Effect.sync(() => {
            pending.delete(action.key)
          })
        case "Request": {
          const { key, request } = action
          let cancelled: Effect.Effect<void> = Effect.never
          if (key !== undefined && request.method === "INVITE") {
            const deferred = Deferred.makeUnsafe<void>()
            cancels.set(key, deferred)
            cancelled = Deferred.await(deferred)
          }
          const incoming: Incoming = {
            key,
            request,
            // Requests are handed on only by `receive`, which says where they came from.
            source: received?.source ?? { transport: "UDP", host: "0.0.0.0", port: 0 },
            tag: received?.tag ?? random(6),
            cancelled,
            respond: (response) => key === undefined || request.method === "ACK" ? Effect.void : respond(key, response)
          }
          return fork(handle(incoming))
        }
        case "Cancelled": {
          const deferred = cancels.get(action.key)
          return deferred === undefined ? Effect.void : Effect.asVoid(Deferred.succeed(deferred, undefined))
        }
        case "ServerEnded":
          return Effect.sync(() => {
            cancels.delete(action.key)
          })
        case "ServerTimeout":
          return Effect.logWarning(`SIP: no ACK came for the answer to INVITE ${action.key}`)
        case "Stray":
          return Effect.logDebug(`SIP: a ${action.response.status} response matching no transaction, ignored`)
      }
    }

    const respond = (key: string, response: OutgoingResponse) =>
      step((t, now) => TransactionTable.respond(t, key, response, now))

    const receive = ({ message, source }: SipTransport.Received) => {
      if (message._tag === "Response") return step((t, now) => TransactionTable.receiveResponse(t, message, now))
      const tag = random(6)
      const replyTo = ViaRouting.responseTarget(message.via[0]!, source)
      return step(
        (t, now) => TransactionTable.receiveRequest(t, message, { source, replyTo, tag, now, ...timers }),
        { source, tag }
      )
    }
    // A message that breaks something here is logged and the next one served: never an endpoint gone quiet.
    const receiveSafely = (received: SipTransport.Received) =>
      receive(received).pipe(
        Effect.catchCause((cause) =>
          Effect.logError(`SIP: a message from ${received.source.host} was not handled`, cause)
        )
      )
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(transport.received), receiveSafely)))

    // The one timer: sleeps until the earliest deadline, or until the table changes.
    const timer = Effect.gen(function*() {
      const at = TransactionTable.deadline(table)
      const now = yield* Clock.currentTimeMillis
      if (at !== undefined && at <= now) return yield* step((t, time) => TransactionTable.tick(t, time))
      yield* at === undefined
        ? Queue.take(wake)
        : Effect.raceFirst(Effect.sleep(at - now), Queue.take(wake))
    })
    yield* Effect.forkScoped(
      Effect.forever(timer.pipe(Effect.catchCause((cause) =>
        // Not at once again: the same deadline would fail the same way.
        Effect.andThen(Effect.logError("SIP: a timer failed", cause), Effect.sleep(1000))
      )))
    )

    const request = (request: OutgoingRequest, destination: Peer, requestOptions: RequestOptions = {}) =>
      Effect.gen(function*() {
        const final = yield* Deferred.make<SipMessage.SipResponse, SipRequestError>()
        const prepared = prepare(request, destination.transport)
        yield* step((t, now) => {
          const started = TransactionTable.sendRequest(t, prepared, destination, { now, ...timers })
          pending.set(started.key, { final, options: requestOptions, unreachable: undefined })
          return started
        })
        return yield* Deferred.await(final)
      })

    const send = (message: SipMessage.Outgoing, destination: Peer) =>
      transport.send(message._tag === "Request" ? prepare(message, destination.transport) : message, destination)

    return {
      host: transport.host,
      port: transport.port,
      prepare,
      request,
      respond,
      send
    } satisfies SipEndpoint
  })
