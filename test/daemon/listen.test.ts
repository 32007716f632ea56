/**
 * Live listen (docs/LISTEN.md) on real daemons, as a client follows
 * the documented flow: list the calls, and listen to one as soon as it is listed (it is still
 * ringing then). The listener gets 101, then the call's audio from the answer (μ-law frames
 * with increasing timestamps, not silence), then `stop`; a call that is never answered sends
 * only `stop` when it ends. Before the upgrade: 401, FastAPI's 422 at `["query", "channel"]`,
 * 404. On both backends; on PostgreSQL also with two daemons, one dialing and one serving only
 * the API: a ticket made on either opens the call on the other, once, and the listener on the
 * daemon that does not serve the call's media hears it all the same, from the answer, relayed
 * by the other (more of the relay in listen-relay.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Daemon from "../support/Daemon.ts"
import { assertAudioFromAnswer, firstListed, listen, listenUrl } from "../support/Listener.ts"
import type { Listed } from "../support/Listener.ts"

const conversation = (url: string, key: string, callId: string) =>
  Effect.map(
    Daemon.request(`${url}/v1/conversations/${callId}`, Daemon.bearer(key)),
    (reply) => reply.body as Listed
  )

const answers = "+12025550101"
const neverAnswers = "+12025550161"

const storages = await Daemon.storages("voice_agent_listen")
const postgres = storages[1]

describe("live listen, on a daemon", () => {
  for (const { name, skip, storage } of storages) {
    describe.skipIf(skip !== undefined)(`on ${name}`, () => {
      it.live(
        "listened to as soon as it is listed, a call is heard from its answer, then stop; an unanswered call sends stop",
        () =>
          Effect.gen(function*() {
            const { args, env } = yield* storage
            const daemon = yield* Daemon.serve(["--port", "0", ...args], env)
            const key = Option.getOrThrow(daemon.apiKey)
            yield* Daemon.campaignWithContacts(daemon.url, key, "listen", [
              { phone_number: answers },
              { phone_number: neverAnswers }
            ])
            // Each call listened to at once (both channels of the answered one).
            const follow = (toNumber: string, channels: ReadonlyArray<string>) =>
              Effect.flatMap(firstListed(daemon.url, key, toNumber), (call) =>
                Effect.map(
                  Effect.forEach(
                    channels,
                    (channel) => listen(listenUrl(daemon.url, call.call_id, `channel=${channel}`), key),
                    { concurrency: "unbounded" }
                  ),
                  (heard) => ({ call, heard })
                ))
            const [answered, unanswered] = yield* Effect.all(
              [follow(answers, ["mixed", "remote"]), follow(neverAnswers, ["agent"])],
              { concurrency: "unbounded" }
            ).pipe(Effect.timeout("60 seconds"))

            assertAudioFromAnswer(answered.heard[0]!, "mixed")
            assertAudioFromAnswer(answered.heard[1]!, "remote")
            assert.deepStrictEqual(unanswered.heard, [{ _tag: "Heard", frames: [{ event: "stop" }] }])

            yield* daemon.waitFor(new RegExp(`to \\${neverAnswers} ended:`)).pipe(Effect.timeout("30 seconds"))
            yield* daemon.waitFor(new RegExp(`to \\${answers} ended:`)).pipe(Effect.timeout("30 seconds"))
            const record = yield* conversation(daemon.url, key, unanswered.call.call_id)
            assert.strictEqual(record.termination_reason, "no-answer")
            assert.isAbove((yield* conversation(daemon.url, key, answered.call.call_id)).duration_sec!, 0)

            // Before the upgrade, on a plain GET.
            const get = (query: string, init?: RequestInit, callId = answered.call.call_id) =>
              Daemon.request(listenUrl(daemon.url, callId, query), init)
            assert.strictEqual((yield* get("channel=mixed")).status, 401, "no key")
            assert.strictEqual((yield* get("channel=mixed", Daemon.bearer("va_wrong"))).status, 401, "bad key")
            for (const query of ["channel=both", ""]) {
              const invalid = yield* get(query, Daemon.bearer(key))
              assert.strictEqual(invalid.status, 422, query)
              const detail = (invalid.body as { detail: Array<{ loc: Array<string>; msg: string; type: string }> })
                .detail
              assert.deepStrictEqual(detail.map((item) => item.loc), [["query", "channel"]], query)
              assert.isString(detail[0]!.msg)
              assert.isString(detail[0]!.type)
            }
            assert.deepStrictEqual(yield* get("channel=mixed", Daemon.bearer(key), "CA-unknown"), {
              status: 404,
              body: { detail: "Call not found or has ended" }
            })
            assert.strictEqual((yield* get("channel=mixed", Daemon.bearer(key))).status, 404, "ended call")
            assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
          }),
        { timeout: 120_000 }
      )
    })
  }

  describe.skipIf(postgres.skip !== undefined)("with two daemons on one PostgreSQL", () => {
    it.live(
      "a ticket from either daemon opens the call on the other, once; the daemon without its media relays it",
      () =>
        Effect.gen(function*() {
          const { env } = yield* postgres.storage
          // The dialing daemon places the calls, and their media streams to it.
          const dialing = yield* Daemon.serve(["--port", "0"], env)
          const other = yield* Daemon.serve(["--port", "0", "--no-dialer"], env)
          const key = Option.getOrThrow(Option.orElse(dialing.apiKey, () => other.apiKey))
          yield* Daemon.campaignWithContacts(other.url, key, "listen-two", [
            { phone_number: answers },
            { phone_number: neverAnswers }
          ])
          const ticketFrom = (daemon: Daemon.RunningDaemon, callId: string) =>
            Effect.map(
              Daemon.request(`${daemon.url}/v1/conversations/${callId}/listen-tickets`, {
                method: "POST",
                headers: { authorization: `Bearer ${key}` }
              }),
              (reply) => {
                assert.strictEqual(reply.status, 201, JSON.stringify(reply.body))
                return (reply.body as { ticket: string }).ticket
              }
            )
          const withTicket = (daemon: Daemon.RunningDaemon, callId: string, ticket: string) =>
            listenUrl(daemon.url, callId, `channel=mixed&ticket=${ticket}`)

          // As soon as each call is listed: tickets from both daemons, each used on the other one.
          const [[call, onDialing, onOther], unansweredOnOther] = yield* Effect.all([
            Effect.gen(function*() {
              const call = yield* firstListed(other.url, key, answers)
              const [fromOther, fromDialing] = yield* Effect.all(
                [ticketFrom(other, call.call_id), ticketFrom(dialing, call.call_id)],
                { concurrency: "unbounded" }
              )
              const [onDialing, onOther] = yield* Effect.all([
                listen(withTicket(dialing, call.call_id, fromOther)),
                listen(withTicket(other, call.call_id, fromDialing))
              ], { concurrency: "unbounded" })
              return [{ ...call, tickets: [fromOther, fromDialing] }, onDialing, onOther] as const
            }),
            Effect.flatMap(
              firstListed(other.url, key, neverAnswers),
              (unanswered) => listen(listenUrl(other.url, unanswered.call_id, "channel=mixed"), key)
            )
          ], { concurrency: "unbounded" }).pipe(Effect.timeout("60 seconds"))

          assertAudioFromAnswer(onDialing, "the daemon serving the media, with the other's ticket")
          assertAudioFromAnswer(onOther, "the daemon serving only the API, relaying the other's audio")
          assert.deepStrictEqual(unansweredOnOther, { _tag: "Heard", frames: [{ event: "stop" }] })
          // Used once, on either daemon: refused on both.
          for (const daemon of [dialing, other]) {
            for (const ticket of call.tickets) {
              const reused = yield* Daemon.request(withTicket(daemon, call.call_id, ticket))
              assert.deepStrictEqual(reused, {
                status: 401,
                body: { detail: "Invalid, used or expired listen ticket" }
              })
            }
          }
          assert.strictEqual(yield* other.stop("SIGTERM"), 0)
          assert.strictEqual(yield* dialing.stop("SIGTERM"), 0)
        }),
      { timeout: 120_000 }
    )
  })
})
