/**
 * Tenant isolation on a real daemon (issue 12, "Security"; the HTTP routes are probed in
 * cross-organization.test.ts): the WebSockets, which the OpenAPI document does not list, and
 * `v2/create-outbound`, which the in-process app (no DirectCalls) answers 501.
 *
 * Organization A (the daemon's first, Daemon.serveWithOrganization) has a campaign, a direct call
 * placed by its SDK agent and a simulated inbound call; organization B, added through the
 * admin API, has a number of its own. With B's key: live listen of A's calls is 404 before any
 * upgrade, as for a call that does not exist; the call sockets of A's calls are closed
 * `state-lost` after `open`; serve-campaign of A's campaign and listen-inbound of A's number are
 * closed `other`; B's listener that names A's inbound call gets nothing of it; create-outbound
 * from A's number is 400 and places nothing. A's key does each of these (the positive control),
 * no key is `authentication-failure`, and no key reaches the daemon's log.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { randomBytes } from "node:crypto"
import { q } from "../http/support/ApiServer.ts"
import * as Daemon from "../support/Daemon.ts"
import { client, exchange, wsUrl } from "./support/SecurityDaemon.ts"

const hex = (bytes: number) => randomBytes(bytes).toString("hex")

const open = (name: string) =>
  JSON.stringify({ message_type: "open", name, connection_id: `probe-${hex(4)}`, is_reopen: false })

/** An envelope `message` frame from the client. */
const message = (sequence: number, payload: Record<string, unknown>) =>
  JSON.stringify({ message_type: "message", sequence, payload })

/** The payloads of the `message` frames among `frames`. */
const payloads = (frames: ReadonlyArray<string>): ReadonlyArray<Record<string, unknown>> =>
  frames.flatMap((frame) => {
    const parsed = JSON.parse(frame) as { message_type?: string; payload?: Record<string, unknown> }
    return parsed.message_type === "message" && parsed.payload !== undefined ? [parsed.payload] : []
  })

const closeReason = (frames: ReadonlyArray<string>): string | undefined => {
  for (const frame of frames) {
    const parsed = JSON.parse(frame) as { message_type?: string; reason?: string }
    if (parsed.message_type === "close") return parsed.reason
  }
  return undefined
}

const isOpenAck = (frames: ReadonlyArray<string>) =>
  frames.some((frame) => (JSON.parse(frame) as { message_type?: string }).message_type === "open-ack")

describe("cross-organization, the daemon's WebSockets and create-outbound", () => {
  it.live(
    "B's key reaches none of A's live calls, campaigns or numbers, and places no call from A's number",
    () =>
      Effect.gen(function*() {
        const aNumber = "+12025550100"
        const bNumber = "+12025550101"
        const started = yield* Daemon.serveWithOrganization("cross-a", aNumber)
        const { daemon, organizationId, adminPost } = started
        const aKey = started.key
        const bId = ((yield* adminPost("organizations", { name: "cross-b" })).body as { id: string }).id
        const bKey = ((yield* adminPost(`organizations/${bId}/api-keys`, {})).body as { api_key: string }).api_key
        assert.strictEqual(
          (yield* adminPost(`organizations/${bId}/phone-numbers`, { phone_number: bNumber })).status,
          201
        )
        const get = (key: string, path: string) => Daemon.request(`${daemon.url}${path}`, Daemon.bearer(key))

        // A's campaign (not yet dialing: it starts in 2099).
        const created = yield* Daemon.request(
          `${daemon.url}/v2/campaigns`,
          Daemon.postJson(aKey, {
            name: "A's campaign",
            origin_phone_numbers: [aNumber],
            start_date: "2099-01-01",
            calling_windows: [{ day: 0, start_time: "09:00", end_time: "17:00" }]
          })
        )
        assert.strictEqual(created.status, 201)
        const aCampaign = created.body as { id: string; campaign_code: string }

        // create-outbound from A's number with B's key: 400, as for any number B does not own;
        // nothing is placed.
        const outbound = (key: string, from: string, to: string) =>
          Daemon.request(`${daemon.url}/v2/create-outbound?from_number=${q(from)}&to_number=${q(to)}`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}` }
          })
        const refused = yield* outbound(bKey, aNumber, "+12025550123")
        assert.strictEqual(refused.status, 400, JSON.stringify(refused.body))
        const unknown = yield* outbound(bKey, "+12025550177", "+12025550123")
        assert.deepStrictEqual(
          JSON.stringify(unknown.body).split("+12025550177").join(aNumber),
          JSON.stringify(refused.body),
          "A's number and an unknown one are refused alike"
        )

        // Two live calls of A's: a direct call placed by A (an SDK agent's call: its session
        // waits for A's agent) to a person who never hangs up, and a simulated inbound call.
        const direct = yield* outbound(aKey, aNumber, "+12025550190")
        assert.strictEqual(direct.status, 200, JSON.stringify(direct.body))
        const directId = (direct.body as { call_id: string }).call_id
        const inbound = yield* adminPost(`organizations/${organizationId}/inbound-calls`, {
          from_number: "+12025550195",
          to_number: aNumber
        })
        assert.strictEqual(inbound.status, 201)
        const inboundId = (inbound.body as { call_id: string }).call_id
        yield* daemon.waitFor(new RegExp(`Media stream of call ${inboundId} started`)).pipe(
          Effect.timeout("20 seconds")
        )
        yield* daemon.waitFor(new RegExp(`Media stream of call ${directId} started`)).pipe(Effect.timeout("20 seconds"))

        // Live listen: 404 before any upgrade for B, as for a call that does not exist; A hears it.
        const listen = (key: string, callId: string, waitMs = 1_500) =>
          exchange(wsUrl(daemon.url, `/v1/conversations/${callId}/listen?channel=mixed`), {
            headers: { authorization: `Bearer ${key}` },
            waitMs,
            done: (frames) => frames.length >= 5
          })
        for (const callId of [inboundId, directId]) {
          const byB = yield* listen(bKey, callId)
          assert.strictEqual(byB.refusedWith, 404, `B listens to ${callId}`)
          assert.deepStrictEqual(byB.frames, [])
          const nobody = yield* listen(bKey, `CA${hex(12)}`)
          assert.strictEqual(nobody.refusedWith, 404)
          assert.strictEqual(nobody.body, byB.body, "A's call and an unknown call are refused alike")
          assert.notInclude(byB.body, callId)
        }
        const byA = yield* listen(aKey, inboundId, 10_000)
        assert.isUndefined(byA.refusedWith, "A listens to its own call")
        assert.isAtLeast(byA.frames.length, 5, "A hears its call")

        // The SDK agents' call sockets of A's calls, with B's key: closed `state-lost` after
        // `open`, nothing of the call sent. Then A's own agent attaches to the direct call.
        for (const path of ["/v2/connect-call", "/v2/connect-campaign-call"]) {
          for (const callId of [directId, inboundId, `CA${hex(12)}`]) {
            const byB = yield* exchange(wsUrl(daemon.url, `${path}/${callId}`), {
              headers: { authorization: `Bearer ${bKey}` },
              send: [open("intruder")],
              waitMs: 5_000
            })
            assert.isUndefined(byB.refusedWith)
            assert.strictEqual(closeReason(byB.frames), "state-lost", `${path}/${callId}: ${byB.frames.join(" ")}`)
            assert.strictEqual(byB.frames.length, 1, `${path}/${callId}: only the close`)
            assert.isTrue(byB.closedByServer)
          }
        }
        const attached = yield* exchange(wsUrl(daemon.url, `/v2/connect-call/${directId}`), {
          headers: { authorization: `Bearer ${aKey}` },
          send: [open("owner")],
          waitMs: 5_000,
          done: isOpenAck
        })
        assert.isTrue(isOpenAck(attached.frames), `A's agent attaches: ${attached.frames.join(" ")}`)

        // An inbound call of A's is announced to A's listeners only, and only they may claim it:
        // B's listener (on B's own number) that names the call's id gets nothing, not even the
        // caller's number; A's listener then claims it, and declines it (a call of A's, never answered).
        const declinedId = yield* Effect.scoped(Effect.gen(function*() {
          const listener = (key: string, number: string) =>
            client(wsUrl(daemon.url, `/v2/listen-inbound?phone_number=${q(number)}`), {
              authorization: `Bearer ${key}`
            })
          const hasPayload = (type: string) => (frames: ReadonlyArray<string>) =>
            payloads(frames).some((p) => p["message_type"] === type)
          const la = yield* listener(aKey, aNumber)
          const lb = yield* listener(bKey, bNumber)
          yield* la.send(open("a-listener"))
          yield* lb.send(open("b-listener"))
          assert.isTrue(hasPayload("listen-started")(yield* la.until(hasPayload("listen-started"), 5_000)))
          assert.isTrue(hasPayload("listen-started")(yield* lb.until(hasPayload("listen-started"), 5_000)))
          const caller = "+12025550196"
          const ringing = yield* Effect.forkChild(
            adminPost(`organizations/${organizationId}/inbound-calls`, { from_number: caller, to_number: aNumber })
          )
          const heard = yield* la.until(hasPayload("incoming-call"), 10_000)
          const callId = payloads(heard).find((p) => p["message_type"] === "incoming-call")?.["call_id"]
          assert.isString(callId, heard.join(" "))
          yield* lb.send(message(1, { message_type: "claim-call", call_id: callId }))
          yield* lb.send(message(2, { message_type: "answer-call", call_id: callId }))
          const seenByB = yield* lb.until(hasPayload("assign-call"), 1_500)
          assert.deepStrictEqual(
            payloads(seenByB).map((p) => p["message_type"]),
            ["listen-started"],
            `B's listener hears nothing of A's call: ${seenByB.join(" ")}`
          )
          assert.notInclude(seenByB.join(" "), caller)
          yield* la.send(message(1, { message_type: "claim-call", call_id: callId }))
          const assigned = payloads(yield* la.until(hasPayload("assign-call"), 5_000))
            .find((p) => p["message_type"] === "assign-call")
          assert.deepStrictEqual(assigned?.["call_info"], {
            call_type: "pstn",
            from_number: caller,
            to_number: aNumber
          })
          yield* la.send(message(2, { message_type: "decline-call", call_id: callId }))
          const declined = yield* Fiber.join(ringing)
          assert.strictEqual(declined.status, 201, JSON.stringify(declined.body))
          assert.deepStrictEqual(declined.body, { call_id: callId })
          return callId as string
        }))

        // Discovery sockets: serve-campaign of A's campaign and listen-inbound of A's number with
        // B's key are closed `other`; A's own key is acknowledged.
        const discovery = [
          `/v1/serve-campaign/${aCampaign.id}`,
          `/v1/serve-campaign/${aCampaign.campaign_code}`,
          `/v2/listen-inbound?phone_number=${q(aNumber)}`
        ]
        for (const path of discovery) {
          const byB = yield* exchange(wsUrl(daemon.url, path), {
            headers: { authorization: `Bearer ${bKey}` },
            send: [open("intruder")],
            waitMs: 5_000
          })
          assert.strictEqual(closeReason(byB.frames), "other", `${path}: ${byB.frames.join(" ")}`)
          assert.strictEqual(byB.frames.length, 1, path)
          for (const secret of [aCampaign.id, aCampaign.campaign_code, organizationId, "A's campaign"]) {
            if (!path.includes(secret)) assert.notInclude(byB.frames.join(" "), secret, path)
          }
        }
        for (const path of [discovery[0]!, discovery[2]!]) {
          const byA = yield* exchange(wsUrl(daemon.url, path), {
            headers: { authorization: `Bearer ${aKey}` },
            send: [open("owner")],
            waitMs: 5_000,
            done: isOpenAck
          })
          assert.isTrue(isOpenAck(byA.frames), `${path} with A's key: ${byA.frames.join(" ")}`)
        }
        // Without a key, or with a revoked-looking one: `authentication-failure` everywhere.
        for (const path of [`/v2/connect-call/${directId}`, discovery[0]!, discovery[2]!]) {
          for (const headers of [{}, { authorization: "Bearer va_not-a-key" }]) {
            const anonymous = yield* exchange(wsUrl(daemon.url, path), { headers, send: [open("anon")], waitMs: 5_000 })
            assert.strictEqual(closeReason(anonymous.frames), "authentication-failure", path)
          }
        }

        // B sees nothing of A's, and none of this made a call or a conversation for B.
        assert.deepStrictEqual((yield* get(bKey, "/v1/conversations")).body, {
          conversations: [],
          next_cursor: null,
          has_more: false
        })
        assert.deepStrictEqual((yield* get(bKey, "/v2/campaigns")).body, [])
        const aCalls = ((yield* get(aKey, "/v1/conversations")).body as { conversations: Array<{ call_id: string }> })
          .conversations.map((c) => c.call_id).sort()
        assert.deepStrictEqual(aCalls, [directId, inboundId, declinedId].sort(), "A has its three calls and no other")
        // No key or token reached the daemon's log.
        for (const secret of [aKey, bKey, "admin-cross-a-secret"]) {
          assert.isFalse(daemon.stdout.some((line) => line.includes(secret)), "a secret in the log")
        }
      }),
    { timeout: 60_000 }
  )
})
