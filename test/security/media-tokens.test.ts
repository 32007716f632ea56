/**
 * The media WebSocket's per-call tokens (docs/MEDIA.md; issue 12, "Security"), on a real daemon
 * over PostgreSQL, the way a carrier or an attacker reaches `/carrier/twilio/media`: the test
 * reads the installation's cursor key from the database and signs tokens as the dialer does
 * (MediaToken), then opens streams with them.
 *
 * A stream is served only with a token for the very call it serves, unexpired, signed with the
 * installation's key, sent in the `start` message before anything else, and only the first
 * stream of a call (a token replayed while its call runs opens nothing). Every other stream is
 * closed right after its handshake, before a byte of audio is read: nothing is sent back,
 * nothing is recorded, no row of the database changes. The call a stream serves is the token's,
 * whatever the `start` message claims.
 */
import { assert, describe, it } from "@effect/vitest"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import { Effect, Fiber } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as Daemon from "../support/Daemon.ts"
import { daemonOnPostgres, databaseSnapshot, exchange, postgresSkip, wsUrl } from "./support/SecurityDaemon.ts"

const streamSid = "MZ0123456789abcdef0123456789abcdef"

const connected = JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" })

const start = (customParameters: Record<string, string> | undefined, callSid = "CA00000000000000000000000000000001") =>
  JSON.stringify({
    event: "start",
    sequenceNumber: "1",
    streamSid,
    start: {
      accountSid: "AC00000000000000000000000000000001",
      streamSid,
      callSid,
      tracks: ["inbound"],
      mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
      ...(customParameters === undefined ? {} : { customParameters })
    }
  })

/** 20 ms of a loud μ-law tone-ish pattern, as the person's audio. */
const media = (i: number) =>
  JSON.stringify({
    event: "media",
    sequenceNumber: String(i + 2),
    streamSid,
    media: {
      track: "inbound",
      chunk: String(i + 1),
      timestamp: String(i * 20),
      payload: Buffer.from(Array.from({ length: 160 }, (_, k) => (k % 2 === 0 ? 0x10 : 0x90))).toString("base64")
    }
  })

const person = Array.from({ length: 25 }, (_, i) => media(i))

const skip = await postgresSkip()

describe.skipIf(skip !== undefined)("media stream tokens, on a daemon over PostgreSQL", () => {
  it.live(
    "only the token of the very call, unexpired and ours, opens its stream; every other is refused before any audio",
    () =>
      Effect.gen(function*() {
        const number = "+12025550100"
        const d = yield* daemonOnPostgres("media-tokens", number)
        const [secret] = yield* d.sql<{ readonly value: Uint8Array }>`
        SELECT value FROM server_secrets WHERE name = 'cursor_key'`.pipe(Effect.orDie)
        const key = MediaToken.keyFrom(new Uint8Array(secret!.value))

        // A campaign that never dials (it starts in 2099), and three calls of it as the dialer
        // records them: X and Y live (no stream yet), Z over.
        const created = yield* Daemon.request(
          `${d.daemon.url}/v2/campaigns`,
          Daemon.postJson(d.key, {
            name: "tokens",
            origin_phone_numbers: [number],
            start_date: "2099-01-01",
            calling_windows: [{ day: 0, start_time: "09:00", end_time: "17:00" }]
          })
        )
        assert.strictEqual(created.status, 201)
        const campaignId = (created.body as { id: string }).id
        const call = (ended: boolean) =>
          Effect.gen(function*() {
            const callId = randomUUID()
            const now = new Date()
            yield* d.sql`
            INSERT INTO conversations (call_id, organization_id, campaign_id, direction, from_number, to_number,
              started_at, answered_at, ended_at, duration_sec, termination_reason)
            VALUES (${callId}, ${d.organizationId}, ${campaignId}, 'outbound', ${number}, '+12025550123',
              ${now}, ${now}, ${ended ? now : null}, ${ended ? 1 : null}, ${ended ? "user-hangup" : null})`
              .pipe(Effect.orDie)
            return callId
          })
        const x = yield* call(false)
        const y = yield* call(false)
        const z = yield* call(true)
        const now = Date.now()
        const valid = MediaToken.sign(key, x, now + 60_000)
        const [idPart, expiryPart, signaturePart] = valid.split(".") as [string, string, string]
        const otherKey = MediaToken.keyFrom(randomBytes(32))

        const refused: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
          ["no token", [connected, start(undefined), ...person]],
          ["an empty token", [connected, start({ token: "" }), ...person]],
          ["a token under another name", [connected, start({ Token: valid, media_token: valid }), ...person]],
          ["garbage", [connected, start({ token: "nonsense" }), ...person]],
          ["X's token, expired a second ago", [
            connected,
            start({ token: MediaToken.sign(key, x, now - 1_000) }),
            ...person
          ]],
          ["X's token with its expiry pushed back", [
            connected,
            start({ token: `${idPart}.${Number(expiryPart) + 3_600_000}.${signaturePart}` }),
            ...person
          ]],
          ["X's token, signed with another installation's key", [
            connected,
            start({ token: MediaToken.sign(otherKey, x, now + 60_000) }),
            ...person
          ]],
          ["X's token rewritten to name Y", [
            connected,
            start({ token: `${Buffer.from(y).toString("base64url")}.${expiryPart}.${signaturePart}` }),
            ...person
          ]],
          ["X's token, one character of its signature changed", [
            connected,
            start({
              token: `${idPart}.${expiryPart}.${signaturePart.slice(0, -1)}${signaturePart.endsWith("A") ? "B" : "A"}`
            }),
            ...person
          ]],
          ["X's token, its signature cut short", [
            connected,
            start({ token: `${idPart}.${expiryPart}.${signaturePart.slice(0, 20)}` }),
            ...person
          ]],
          ["the token of Z, a call that is over", [
            connected,
            start({ token: MediaToken.sign(key, z, now + 60_000) }),
            ...person
          ]],
          ["the token of a call that does not exist", [
            connected,
            start({ token: MediaToken.sign(key, randomUUID(), now + 60_000) }),
            ...person
          ]],
          ["audio before the start message", [connected, media(0), start({ token: valid }), ...person]],
          ["audio and no start message", [connected, ...person]]
        ]

        const before = yield* databaseSnapshot(d.sql)
        for (const [label, frames] of refused) {
          const startedAt = Date.now()
          const outcome = yield* exchange(wsUrl(d.daemon.url, "/carrier/twilio/media"), {
            send: frames.slice(0, 3),
            more: frames.slice(3),
            waitMs: 5_000
          })
          assert.isUndefined(outcome.refusedWith, `${label}: the upgrade itself is accepted`)
          assert.isTrue(outcome.closedByServer, `${label}: the server closes the stream`)
          assert.deepStrictEqual(outcome.frames, [], `${label}: nothing is sent back`)
          // Closed on the handshake, not by the 10 s start timeout.
          assert.isBelow(Date.now() - startedAt, 3_000, `${label}: closed at once`)
        }
        assert.deepStrictEqual(yield* databaseSnapshot(d.sql), before, "no row changed: no recording, no turn")
        const refusals = d.daemon.stdout.filter((line) => /Media stream refused/.test(line))
        assert.strictEqual(refusals.length, refused.length, refusals.join("\n"))
        assert.isFalse(d.daemon.stdout.some((line) => /Media stream of call/.test(line)), "no stream started")

        // X's own token opens X's stream, even with a start message that names Y as its call:
        // the agent speaks on it, and X (not Y) is recorded.
        const servedFiber = yield* Effect.forkChild(exchange(wsUrl(d.daemon.url, "/carrier/twilio/media"), {
          send: [connected, start({ token: valid }, y)],
          more: person,
          waitMs: 8_000,
          done: (frames) => frames.filter((frame) => frame.includes("\"media\"")).length >= 3
        }))
        yield* d.daemon.waitFor(new RegExp(`Media stream of call ${x} started`)).pipe(Effect.timeout("5 seconds"))
        // A second stream with X's token while X's runs (a replayed token) is refused like the
        // others: closed at once, nothing sent, nothing set up for it.
        const second = yield* exchange(wsUrl(d.daemon.url, "/carrier/twilio/media"), {
          send: [connected, start({ token: valid }), ...person.slice(0, 1)],
          more: person.slice(1),
          waitMs: 5_000
        })
        assert.isTrue(second.closedByServer, "the second stream is closed")
        assert.deepStrictEqual(second.frames, [], "nothing is sent on the second stream")
        yield* d.daemon.waitFor(new RegExp(`Media stream refused: call ${x} already has a stream`)).pipe(
          Effect.timeout("5 seconds")
        )
        const served = yield* Fiber.join(servedFiber)
        assert.isAtLeast(
          served.frames.filter((frame) => frame.includes("\"media\"")).length,
          3,
          `X's stream is served: ${served.frames.slice(0, 3).join(" ")}`
        )
        const recorded = yield* d.sql<{ readonly call_id: string }>`SELECT DISTINCT call_id FROM recordings`.pipe(
          Effect.orDie
        )
        assert.deepStrictEqual(recorded.map((r) => r.call_id), [x], "only X is recorded")
        // One stream started, X's; whether its end is logged yet depends on when the client closed.
        const started = d.daemon.stdout.filter((line) => /Media stream of call \S+ started/.test(line))
        assert.strictEqual(started.length, 1, started.join("\n"))
        assert.isFalse(d.daemon.stdout.some((line) => /Media session failed/.test(line)), "no session failed")
      }),
    { timeout: 60_000 }
  )
})
