/**
 * Live listen across daemons (docs/LISTEN.md, "Several daemons"; CONTRACT §8, "Live listen,
 * completed"), on PostgreSQL with two real daemons: one that dials (the carrier streams each
 * call's media to it) and one that serves only the API (`--no-dialer`). A listener on the API
 * daemon, with the key: 101, the call's audio from the answer relayed by the other, then `stop`
 * when the call ends there; one that joins mid-call hears it from then on, then `stop`. Another
 * organization's key is 404 there, as for a call that does not exist, for the socket and for a
 * ticket; the internal relay endpoint refuses anything but a grant a daemon of the installation
 * made. When the daemon that serves the media dies mid-call, the listener's socket closes (1011)
 * within seconds: it is never left waiting.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schedule } from "effect"
import * as Daemon from "../support/Daemon.ts"
import { assertAudio, assertAudioFromAnswer, firstListed, listenUrl, listenWithClose } from "../support/Listener.ts"

const answers = "+12025550101"
const adminToken = "admin-listen-relay-secret"

const storages = await Daemon.storages("voice_agent_listen_relay")
const postgres = storages[1]

/** The dialing daemon (the media of its calls streams to it) and one serving only the API. */
const twoDaemons = Effect.gen(function*() {
  const { env } = yield* postgres.storage
  const withAdmin = { ...env, VOICE_AGENT_ADMIN_TOKEN: adminToken }
  const serving = yield* Daemon.serve(["--port", "0"], withAdmin)
  const api = yield* Daemon.serve(["--port", "0", "--no-dialer"], withAdmin)
  yield* api.waitFor(/Dialer off \(--no-dialer\)/)
  const { key } = yield* organization(api.url, "relay", "+12025550100")
  return { serving, api, key }
})

/** A new organization (through the admin API), with a key and, when given, a number. */
const organization = (url: string, name: string, number?: string) =>
  Effect.gen(function*() {
    const adminPost = (path: string, body: unknown) =>
      Daemon.request(`${url}/admin/v1/${path}`, Daemon.postJson(adminToken, body))
    const id = ((yield* adminPost("organizations", { name })).body as { id: string }).id
    const key = ((yield* adminPost(`organizations/${id}/api-keys`, {})).body as { api_key: string }).api_key
    if (number !== undefined) {
      assert.strictEqual((yield* adminPost(`organizations/${id}/phone-numbers`, { phone_number: number })).status, 201)
    }
    return { id, key }
  })

/** A listener whose `frames` Deferred completes once it has heard `count` media frames. */
const listenerHearing = (url: string, key: string, count: number) =>
  Effect.gen(function*() {
    const heardSome = yield* Deferred.make<void>()
    let media = 0
    const fiber = yield* Effect.forkChild(listenWithClose(url, key, (frame) => {
      if (frame.event === "media" && ++media === count) Deferred.doneUnsafe(heardSome, Effect.void)
    }))
    return { heardSome: Deferred.await(heardSome), done: Fiber.join(fiber) }
  })

describe.skipIf(postgres.skip !== undefined)("live listen relayed between daemons on one PostgreSQL", () => {
  it.live(
    "through the daemon serving only the API: the call from its answer, or from when one joins, then stop; " +
      "another organization's key is 404; the relay endpoint takes only grants",
    () =>
      Effect.gen(function*() {
        const { api, key } = yield* twoDaemons
        yield* Daemon.campaignWithContacts(api.url, key, "relayed", [{ phone_number: answers }])
        // Listened to through the API daemon as soon as it is listed (ringing then).
        const call = yield* firstListed(api.url, key, answers).pipe(Effect.timeout("30 seconds"))
        const first = yield* listenerHearing(listenUrl(api.url, call.call_id, "channel=mixed"), key, 50)
        yield* first.heardSome.pipe(Effect.timeout("30 seconds"))

        // A second of the call heard: another listener joins, on the remote channel.
        const joined = yield* Effect.forkChild(
          listenWithClose(listenUrl(api.url, call.call_id, "channel=remote"), key)
        )

        // Another organization, while the call is live: 404 on the API daemon, as for no call.
        const otherKey = (yield* organization(api.url, "relay-other")).key
        const probe = yield* listenWithClose(listenUrl(api.url, call.call_id, "channel=mixed"), otherKey)
        assert.deepStrictEqual(probe.heard, { _tag: "Refused", status: 404 }, "another organization's key")
        const ticket = yield* Daemon.request(`${api.url}/v1/conversations/${call.call_id}/listen-tickets`, {
          method: "POST",
          headers: { authorization: `Bearer ${otherKey}` }
        })
        assert.deepStrictEqual(ticket, { status: 404, body: { detail: `Conversation ${call.call_id} not found` } })

        // The internal endpoint: no grant, a made-up one, not an upgrade.
        const relayUrl = (query: string) => `${api.url}/internal/v1/listen-relay/${call.call_id}${query}`
        for (
          const query of ["", "?grant=garbage", `?grant=${"a".repeat(40)}.${Date.now() + 5_000}.${"b".repeat(43)}`]
        ) {
          const refused = yield* listenWithClose(relayUrl(query))
          assert.deepStrictEqual(refused.heard, { _tag: "Refused", status: 401 }, `grant ${query}`)
        }
        assert.strictEqual((yield* Daemon.request(relayUrl("?grant=garbage"))).status, 426)

        const heard = yield* first.done.pipe(Effect.timeout("60 seconds"))
        assertAudioFromAnswer(heard.heard, "listened to from the start, through the API daemon")
        assert.strictEqual(heard.code, 1000, "closed normally after stop")
        const late = yield* Fiber.join(joined).pipe(Effect.timeout("30 seconds"))
        assertAudio(late.heard, "joined a second in", { fromAnswer: false })
        if (late.heard._tag === "Heard") {
          assert.isAbove(Number(late.heard.frames[0]!.media!.timestamp), 0, "from when it joined, not the answer")
        }
        // The record's end is written by the dialer holding the call once the carrier reports
        // it, apart from the media session's end that sent `stop`: it follows within moments.
        const reason = yield* Daemon.request(`${api.url}/v1/conversations/${call.call_id}`, Daemon.bearer(key)).pipe(
          Effect.map((response) => (response.body as { termination_reason: string | null }).termination_reason),
          Effect.repeat({ schedule: Schedule.spaced("200 millis"), until: (reason) => reason !== null, times: 50 })
        )
        assert.isNotNull(reason, "the call's end is recorded once stop has come")
      }),
    { timeout: 120_000 }
  )

  it.live(
    "when the daemon serving the media dies mid-call, the relayed listener's socket closes",
    () =>
      Effect.gen(function*() {
        const { api, key, serving } = yield* twoDaemons
        yield* Daemon.campaignWithContacts(api.url, key, "relay-lost", [{ phone_number: answers }])
        const call = yield* firstListed(api.url, key, answers).pipe(Effect.timeout("30 seconds"))
        const listener = yield* listenerHearing(listenUrl(api.url, call.call_id, "channel=mixed"), key, 25)
        yield* listener.heardSome.pipe(Effect.timeout("30 seconds"))
        yield* serving.stop("SIGKILL")
        const { code, heard } = yield* listener.done.pipe(Effect.timeout("10 seconds"))
        assert.strictEqual(code, 1011)
        assert.strictEqual(heard._tag, "Heard")
        if (heard._tag === "Heard") {
          assert.isAtLeast(heard.frames.length, 25)
          assert.isTrue(heard.frames.every((frame) => frame.event === "media"), "no stop: the call did not end")
        }
      }),
    { timeout: 120_000 }
  )
})
