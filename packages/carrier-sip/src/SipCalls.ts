/**
 * The SIP user agent facing one trunk: a `SipEndpoint`, the calls on it, and REGISTER.
 *
 * Owns: which call a request belongs to (Call-ID and our tag in To: the call's `receive`;
 * no call: 481, an ACK ignored), requests outside a dialog (INVITE to `InboundCall`, OPTIONS
 * answered 200 with Allow and Accept, BYE, NOTIFY, UPDATE and the like 481, unknown methods
 * 501), `dial` (`OutboundCall`), answered inbound calls on a bounded queue (`inbound`), and
 * `Registration` when the config says so. Scoped: calls, timers and the sockets end with it.
 *
 * Does not own RTP (the caller binds its ports and gives `Sdp.Local`), nor the `Carrier` port.
 *
 * @since 0.1.0
 */
import { Effect, FiberSet, Queue } from "effect"
import type { Scope } from "effect"
import type * as Call from "./Call.ts"
import type * as ClientTransaction from "./ClientTransaction.ts"
import * as InboundCall from "./InboundCall.ts"
import * as InDialog from "./InDialog.ts"
import * as OutboundCall from "./OutboundCall.ts"
import * as Registration from "./Registration.ts"
import type * as SipConfig from "./SipConfig.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipHeaders from "./SipHeaders.ts"
import type * as SipTransport from "./SipTransport.ts"
import * as ViaRouting from "./ViaRouting.ts"
import type { Peer } from "./ViaRouting.ts"

/** Methods that only make sense in a dialog: 481 outside one. */
const IN_DIALOG = new Set(["BYE", "UPDATE", "NOTIFY", "INFO", "PRACK", "REFER"])

/**
 * @category models
 */
export interface Options {
  readonly config: Pick<
    SipConfig.SipConfig,
    "trunk" | "credentials" | "register" | "listen" | "publicAddress" | "ringTimeoutS"
  >
  /** Whether an E.164 number is ours (an inbound INVITE to another gets 404). */
  readonly owns: (e164: string) => boolean
  /** Answers or refuses an inbound INVITE to an owned number (180 has been sent). */
  readonly decide: (invite: InboundCall.Invite) => Effect.Effect<InboundCall.Decision>
  readonly timers?: ClientTransaction.Timers
  /** Events a call holds unread; default 64. */
  readonly eventCapacity?: number
  /** Answered inbound calls not yet taken; default 16 (past it, the answering waits). */
  readonly inboundCapacity?: number
}

/**
 * @category models
 */
export interface SipCalls {
  readonly host: string
  readonly port: number
  readonly dial: (options: OutboundCall.DialOptions) => Effect.Effect<Call.Call, OutboundCall.DialFailed>
  /**
   * `sip:<E.164>@<trunk host>`: where a transfer to a number is referred (CONTRACT §8). The host
   * alone, not its port: the URI names the number at the trunk, which receives the REFER itself.
   */
  readonly uriOf: (e164: string) => string
  /** Inbound calls, answered and ACKed. */
  readonly inbound: Queue.Dequeue<Call.Call>
  /** Present when `config.register`. */
  readonly registration: Registration.Registration | undefined
}

/**
 * The user agent, listening on `config.listen` for the scope.
 *
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<SipCalls, SipTransport.SipTransportError, Scope.Scope> =>
  Effect.gen(function*() {
    const { config } = options
    const calls = new Map<string, { readonly localTag: string; readonly handle: Call.Handle }>()
    const fibers = yield* FiberSet.make<void>()
    const inbound = yield* Queue.bounded<Call.Call>(options.inboundCapacity ?? 16)
    let dispatch: (incoming: SipEndpoint.Incoming) => Effect.Effect<void> = () => Effect.void
    const endpoint = yield* SipEndpoint.make({
      host: config.listen.host,
      port: config.listen.port,
      publicAddress: config.publicAddress,
      handler: (incoming) => dispatch(incoming),
      ...(options.timers === undefined ? {} : { timers: options.timers })
    })
    const transport: Peer["transport"] = config.trunk.transport === "tcp" ? "TCP" : "UDP"
    const trunk: Peer = { transport, host: config.trunk.host, port: config.trunk.port }
    const trunkHostPort = `${ViaRouting.uriHost(config.trunk.host)}${
      config.trunk.port === 5060 ? "" : `:${config.trunk.port}`
    }`
    const user = config.credentials?.username ?? "voice-agent"
    const contact = OutboundCall.contactOf(user, config.publicAddress, endpoint.port, transport)
    const credentials = config.credentials
    const register = (callId: string, localTag: string, handle: Call.Handle) => {
      calls.set(callId, { localTag, handle })
    }
    const base: Call.Context = {
      endpoint,
      transport,
      contact,
      credentials,
      eventCapacity: options.eventCapacity ?? 64,
      fork: (effect) => Effect.asVoid(FiberSet.run(fibers, effect)),
      forget: (callId) => void calls.delete(callId)
    }
    const t1 = options.timers?.t1 ?? 500
    const inboundContext: InboundCall.Context = {
      ...base,
      owns: options.owns,
      decide: options.decide,
      register,
      deliver: (call) => Effect.asVoid(Queue.offer(inbound, call)),
      ackTimeoutMs: 64 * t1
    }
    const outboundContext: OutboundCall.Context = {
      ...base,
      trunk,
      trunkHostPort,
      publicHost: ViaRouting.uriHost(config.publicAddress),
      ringTimeoutS: config.ringTimeoutS,
      register
    }

    dispatch = (incoming) => {
      const { request } = incoming
      const toTag = SipHeaders.param(request.to.params, "tag")
      if (toTag !== undefined) {
        const entry = calls.get(request.callId)
        if (entry !== undefined && entry.localTag === toTag) return entry.handle.receive(incoming)
        if (request.method === "ACK") return Effect.void
        return Effect.andThen(
          Effect.logDebug(`SIP: ${request.method} for no call of ours (${request.callId}): 481`),
          incoming.respond(SipEndpoint.answer(incoming, 481))
        )
      }
      switch (request.method) {
        case "INVITE":
          return InboundCall.handle(inboundContext, incoming)
        case "ACK":
          return Effect.void
        case "OPTIONS":
          return incoming.respond(SipEndpoint.answer(incoming, 200, { headers: InDialog.capabilities }))
        default:
          return IN_DIALOG.has(request.method)
            ? incoming.respond(SipEndpoint.answer(incoming, 481))
            : incoming.respond(
              SipEndpoint.answer(incoming, 501, { headers: [{ name: "Allow", value: InDialog.ALLOW }] })
            )
      }
    }

    const registration = config.register
      ? yield* Registration.make({
        endpoint,
        trunk,
        trunkHostPort,
        username: user,
        credentials,
        contact,
        publicHost: ViaRouting.uriHost(config.publicAddress)
      })
      : undefined

    // Calls still up when the scope closes get their BYE.
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...calls.values()], ({ handle }) => Effect.raceFirst(handle.call.hangup, Effect.sleep(2000)), {
        discard: true
      })
    )

    return {
      host: endpoint.host,
      port: endpoint.port,
      dial: (dialOptions) => OutboundCall.dial(outboundContext, dialOptions),
      uriOf: (e164) => `sip:${e164}@${ViaRouting.uriHost(config.trunk.host)}`,
      inbound,
      registration
    } satisfies SipCalls
  })
