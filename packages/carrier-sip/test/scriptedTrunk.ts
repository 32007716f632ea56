/**
 * A trunk for `SipCalls`' tests: a `SipEndpoint` on loopback whose requests the test takes one
 * by one and answers as it likes, and helpers to write the trunk's side of a call.
 */
import { assert } from "@effect/vitest"
import * as Dialog from "@voice-agent/carrier-sip/Dialog"
import * as InDialog from "@voice-agent/carrier-sip/InDialog"
import * as Sdp from "@voice-agent/carrier-sip/Sdp"
import * as SipCalls from "@voice-agent/carrier-sip/SipCalls"
import * as SipEndpoint from "@voice-agent/carrier-sip/SipEndpoint"
import * as SipMessage from "@voice-agent/carrier-sip/SipMessage"
import type { Peer } from "@voice-agent/carrier-sip/ViaRouting"
import { Effect, Logger, Queue, Result } from "effect"
import { TestClock } from "effect/testing"
import * as dgram from "node:dgram"

export const host = "127.0.0.1"
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The trunk's own media. */
export const trunkMedia: Sdp.Local = { address: host, port: 30_000, sessionId: "77", version: 1 }
/** The user agent's media. */
export const ourMedia: Sdp.Local = { address: host, port: 40_000, sessionId: "42", version: 1 }

export const make = Effect.gen(function*() {
  const inbox = yield* Queue.unbounded<SipEndpoint.Incoming>()
  const endpoint = yield* SipEndpoint.make({
    host,
    port: 0,
    handler: (incoming) => Effect.asVoid(Queue.offer(inbox, incoming))
  })
  /** The next request the trunk got, which must be a `method`. */
  const next = (method: string) =>
    Effect.map(Queue.take(inbox), (incoming) => {
      assert.strictEqual(incoming.request.method, method)
      return incoming
    })
  const contact = `<sip:trunk@${host}:${endpoint.port}>`
  /** 200 with the trunk's SDP answer to the INVITE's offer. */
  const answerInvite = (invite: SipEndpoint.Incoming, media: Sdp.Local = trunkMedia) => {
    const offer = Sdp.parse(decoder.decode(invite.request.body))
    assert.isTrue(Result.isSuccess(offer))
    const answered = Sdp.answer((offer as Result.Success<Sdp.SessionDescription, string>).success, media)
    assert.isTrue(Result.isSuccess(answered))
    return invite.respond(SipEndpoint.answer(invite, 200, {
      headers: [{ name: "Contact", value: contact }, { name: "Content-Type", value: "application/sdp" }],
      body: encoder.encode((answered as Result.Success<{ sdp: string }, string>).success.sdp)
    }))
  }
  /** The trunk's side of the dialog of an INVITE it answered. */
  const dialogOf = (invite: SipEndpoint.Incoming) => {
    const made = Dialog.fromRequest(invite.request, invite.tag)
    assert.isTrue(Result.isSuccess(made))
    return (made as Result.Success<Dialog.Dialog, string>).success
  }
  /** Sends a request in `dialog` to `peer`; the dialog counted and the final response. */
  const inDialog = (
    dialog: Dialog.Dialog,
    method: string,
    peer: Peer,
    options: { readonly headers?: ReadonlyArray<SipMessage.Header>; readonly body?: string } = {}
  ) => {
    const built = Dialog.request(dialog, method, {
      via: "",
      contact,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      ...(options.body === undefined ? {} : { body: encoder.encode(options.body) })
    })
    return Effect.map(
      endpoint.request(InDialog.withoutVia(built.request), peer),
      (response) => ({ dialog: built.dialog, response })
    )
  }
  return { endpoint, inbox, next, contact, answerInvite, dialogOf, inDialog }
})

/** A `SipCalls` facing `trunkPort` on loopback. */
export const userAgent = (
  trunkPort: number,
  options: Partial<Omit<SipCalls.Options, "config">> & { readonly config?: Partial<SipCalls.Options["config"]> } = {}
) =>
  SipCalls.make({
    owns: () => false,
    decide: () => Effect.succeed({ _tag: "Reject", status: 603 }),
    ...options,
    config: {
      trunk: { host, port: trunkPort, transport: "udp" },
      credentials: undefined,
      register: false,
      listen: { host, port: 0 },
      publicAddress: host,
      ringTimeoutS: 30,
      ...options.config
    }
  })

export const text = (bytes: Uint8Array) => decoder.decode(bytes)

/**
 * A trunk with no transaction layer: a bare UDP socket on loopback, for what a real trunk can
 * do and `SipEndpoint` will not (a 200 sent after a CANCEL came). Requests parsed, in order.
 */
export const raw = Effect.gen(function*() {
  const inbox = yield* Queue.unbounded<SipMessage.SipMessage>()
  const socket = yield* Effect.acquireRelease(
    Effect.callback<dgram.Socket>((resume) => {
      const socket = dgram.createSocket("udp4")
      socket.on("message", (bytes) => {
        const parsed = SipMessage.parse(bytes)
        if (Result.isSuccess(parsed)) Queue.offerUnsafe(inbox, parsed.success)
      })
      socket.bind(0, host, () => resume(Effect.succeed(socket)))
    }),
    (socket) => Effect.callback<void>((resume) => void socket.close(() => resume(Effect.void)))
  )
  const send = (message: SipMessage.Outgoing, port: number) =>
    Effect.callback<void>((resume) => {
      socket.send(SipMessage.serialize(message), port, host, () => resume(Effect.void))
    })
  const next = (method: string) =>
    Effect.map(Queue.take(inbox), (message) => {
      assert.strictEqual(message._tag === "Request" ? message.method : `${message.status}`, method)
      return message as SipMessage.SipRequest
    })
  return { port: socket.address().port, next, send }
})

/** What is logged while `effect` runs (and its fibers), as text. */
export const withLogs = <A, E, R>(effect: (logged: Array<string>) => Effect.Effect<A, E, R>) => {
  const logged: Array<string> = []
  const capture = Logger.layer([
    Logger.make(({ message }) => void logged.push((Array.isArray(message) ? message : [message]).join(" ")))
  ])
  return effect(logged).pipe(Effect.provide(capture))
}

/** A few real milliseconds: for what arrives over a socket while the test's clock stands. */
export const realPause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

/** Waits in real time (10 s at most, the test's clock standing or not) until `done()`. */
export const until = (done: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!done() && Date.now() < deadline) yield* realPause
    assert.isTrue(done(), "waited")
  })

/**
 * Moves the test clock by `stepMs` until `inbox` holds something: the user agent reads the
 * last answer over a real socket, so the wait it then starts may begin after a first move.
 * After each move, what it set off travels over a real socket too: the clock stands until that
 * has arrived or a real second has passed, for a second move while a request is on its way
 * could fire that request's own timers (a transaction's 32 s timeout) on a loaded machine.
 */
export const advanceUntil = <A>(inbox: Queue.Queue<A>, stepMs: number) =>
  Effect.gen(function*() {
    const empty = Effect.map(Queue.size(inbox), (size) => size === 0)
    for (let moves = 0; moves < 20 && (yield* empty); moves++) {
      yield* realPause
      yield* TestClock.adjust(stepMs)
      for (let waits = 0; waits < 200 && (yield* empty); waits++) yield* realPause
    }
  })
