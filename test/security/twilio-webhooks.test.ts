/**
 * Signed webhooks in (docs/TWILIO.md; issue 12, "Security"), on a real daemon
 * with the Twilio carrier over PostgreSQL: every webhook route refuses a request whose
 * `X-Twilio-Signature` is missing, empty, made with another auth token, made for another URL
 * or other parameters, or one character off, with 403 and a `{detail}` body, and nothing in
 * the database changes. The same requests correctly signed are then accepted and take effect,
 * so the refusals are the signature's. Bodies over the webhook limit are refused before the
 * signature is even computed.
 *
 * The daemon's public URL is `https://voice.example.com` (a deployment behind a TLS proxy):
 * Twilio signs the URL it was given, not the address the daemon listens on.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TwilioSignature from "@voice-agent/carrier-twilio/TwilioSignature"
import { Effect, Redacted } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as http from "node:http"
import { daemonOnPostgres, databaseSnapshot, postgresSkip } from "./support/SecurityDaemon.ts"

const publicUrl = "https://voice.example.com"
const accountSid = `AC${randomBytes(16).toString("hex")}`
const authToken = randomBytes(16).toString("hex")
const otherToken = randomBytes(16).toString("hex")

interface Answer {
  readonly status: number
  readonly contentType: string
  readonly text: string
}

/** A POST to the daemon, the body sent as given (`chunked`: without a Content-Length). */
const post = (
  daemonUrl: string,
  path: string,
  body: string,
  headers: Record<string, string>,
  chunked = false
) =>
  Effect.callback<Answer>((resume) => {
    const url = new URL(path, daemonUrl)
    const request = http.request({
      host: url.hostname,
      port: url.port,
      method: "POST",
      path: `${url.pathname}${url.search}`,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(Buffer.byteLength(body)) }),
        ...headers
      }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resume(Effect.succeed({
          status: response.statusCode ?? 0,
          contentType: response.headers["content-type"] ?? "",
          text: Buffer.concat(chunks).toString("utf8")
        })))
    })
    request.on("error", (error) => resume(Effect.die(error)))
    request.end(body)
  })

const form = (params: Record<string, string>) => new URLSearchParams(params).toString()

const signed = (token: string, path: string, params: Record<string, string>) =>
  TwilioSignature.sign(Redacted.make(token), `${publicUrl}${path}`, params)

const skip = await postgresSkip()

describe.skipIf(skip !== undefined)("Twilio webhooks, on a daemon over PostgreSQL", () => {
  it.live(
    "a missing or wrong X-Twilio-Signature is 403 on every webhook and changes nothing; the signed twin works",
    () =>
      Effect.gen(function*() {
        const number = "+12025550100"
        const d = yield* daemonOnPostgres("twilio-signatures", number, {
          VOICE_AGENT_CARRIER: "twilio",
          TWILIO_ACCOUNT_SID: accountSid,
          TWILIO_AUTH_TOKEN: authToken,
          // Never reached: nothing here places a call or sends a message.
          TWILIO_API_BASE: "http://127.0.0.1:9",
          VOICE_AGENT_PUBLIC_URL: publicUrl
        })
        // A live outbound call of ours, and a message we sent, as the dialer and send-sms record them.
        const callId = randomUUID()
        const messageSid = `SM${randomBytes(16).toString("hex")}`
        const now = new Date()
        yield* d.sql`
        INSERT INTO conversations (call_id, organization_id, direction, from_number, to_number, started_at)
        VALUES (${callId}, ${d.organizationId}, 'outbound', ${number}, '+12025550123', ${now})`.pipe(Effect.orDie)
        yield* d.sql`
        INSERT INTO messages (organization_id, direction, modality, from_number, to_number, content, received_at,
          status, carrier_message_id)
        VALUES (${d.organizationId}, 'outbound', 'sms', ${number}, '+12025550123', 'hello', ${now}, 'queued',
          ${messageSid})`.pipe(Effect.orDie)

        const callSid = `CA${randomBytes(16).toString("hex")}`
        const requests: ReadonlyArray<{ readonly path: string; readonly params: Record<string, string> }> = [
          {
            path: "/carrier/twilio/sms",
            params: {
              MessageSid: `SM${randomBytes(16).toString("hex")}`,
              AccountSid: accountSid,
              From: "+13035550111",
              To: number,
              Body: "forged"
            }
          },
          {
            path: "/carrier/twilio/voice",
            params: {
              CallSid: callSid,
              AccountSid: accountSid,
              From: "+13035550111",
              To: number,
              CallStatus: "ringing",
              Direction: "inbound"
            }
          },
          {
            path: `/carrier/twilio/voice?call_id=${callId}`,
            params: {
              CallSid: callSid,
              AccountSid: accountSid,
              From: number,
              To: "+12025550123",
              CallStatus: "in-progress",
              Direction: "outbound-api",
              AnsweredBy: "human"
            }
          },
          {
            path: `/carrier/twilio/status?call_id=${callId}`,
            params: { CallSid: callSid, AccountSid: accountSid, CallStatus: "completed", CallDuration: "12" }
          },
          {
            path: "/carrier/twilio/sms-status",
            params: { MessageSid: messageSid, AccountSid: accountSid, MessageStatus: "delivered" }
          }
        ]

        const before = yield* databaseSnapshot(d.sql)
        for (const { params, path } of requests) {
          const good = signed(authToken, path, params)
          const forgeries: ReadonlyArray<readonly [string, Record<string, string>, Record<string, string>]> = [
            ["no signature", params, {}],
            ["an empty signature", params, { "x-twilio-signature": "" }],
            ["another auth token's", params, { "x-twilio-signature": signed(otherToken, path, params) }],
            ["one character off", params, {
              "x-twilio-signature": `${good.slice(0, 10)}${good[10] === "A" ? "B" : "A"}${good.slice(11)}`
            }],
            ["cut short", params, { "x-twilio-signature": good.slice(0, -2) }],
            ["made longer", params, { "x-twilio-signature": `${good}AAAA` }],
            ["signed for the listening address", params, {
              "x-twilio-signature": TwilioSignature.sign(Redacted.make(authToken), `${d.daemon.url}${path}`, params)
            }],
            ["signed for another webhook", params, {
              "x-twilio-signature": signed(
                authToken,
                path === "/carrier/twilio/sms" ? "/carrier/twilio/voice" : "/carrier/twilio/sms",
                params
              )
            }],
            ["with a parameter changed after signing", {
              ...params,
              [Object.keys(params).at(-1)!]: `${Object.values(params).at(-1)}x`
            }, { "x-twilio-signature": good }],
            ["with a parameter added after signing", { ...params, Extra: "1" }, { "x-twilio-signature": good }],
            ["with another query string", params, { "x-twilio-signature": good }]
          ]
          for (const [label, body, headers] of forgeries) {
            const target = label === "with another query string"
              ? `${path}${path.includes("?") ? "&" : "?"}call_id=${randomUUID()}`
              : path
            const answer = yield* post(d.daemon.url, target, form(body), headers)
            assert.strictEqual(answer.status, 403, `${path}, ${label}: ${answer.status} ${answer.text}`)
            assert.match(answer.contentType, /json/, `${path}, ${label}`)
            assert.deepStrictEqual(JSON.parse(answer.text), { detail: "Invalid Twilio signature" }, `${path}, ${label}`)
          }
          // A body over the webhook limit: 413 from its length alone, before any signature.
          const huge = yield* post(d.daemon.url, path, form({ ...params, Body: "x".repeat(70_000) }), {
            "x-twilio-signature": good
          })
          assert.strictEqual(huge.status, 413, `${path}: ${huge.text}`)
          // Without a Content-Length: read no further than the limit, then 413.
          const chunked = yield* post(d.daemon.url, path, form({ ...params, Body: "x".repeat(70_000) }), {
            "x-twilio-signature": good
          }, true)
          assert.strictEqual(chunked.status, 413, `${path}, chunked: ${chunked.text}`)
        }
        assert.deepStrictEqual(yield* databaseSnapshot(d.sql), before, "no refused webhook changed a row")
        const refusals = d.daemon.stdout.filter((line) => /refused: invalid signature/.test(line))
        assert.strictEqual(refusals.length, requests.length * 11, "each refusal is logged")

        // The same requests, signed: accepted, and each takes effect.
        for (const { params, path } of requests) {
          const answer = yield* post(d.daemon.url, path, form(params), {
            "x-twilio-signature": signed(authToken, path, params)
          })
          assert.include([200, 204], answer.status, `${path}: ${answer.status} ${answer.text}`)
          if (path.startsWith("/carrier/twilio/voice")) assert.include(answer.text, "<Stream", path)
        }
        const stored = yield* d.sql<{ readonly content: string; readonly status: string }>`
        SELECT content, status FROM messages WHERE organization_id = ${d.organizationId} ORDER BY content`
          .pipe(Effect.orDie)
        assert.deepStrictEqual(stored.map((m) => [m.content, m.status]), [["forged", "received"], [
          "hello",
          "delivered"
        ]])
        const events = yield* d.sql<{ readonly kind: string }>`
        SELECT kind FROM call_events WHERE call_id = ${callId} ORDER BY kind`.pipe(Effect.orDie)
        assert.deepStrictEqual(events.map((e) => e.kind), ["Answered", "Ended"])
      }),
    { timeout: 60_000 }
  )
})
