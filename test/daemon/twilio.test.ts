/**
 * The daemon on Twilio, end to end against the local Twilio fake (test/support/twilio-fake),
 * which it reaches through `TWILIO_API_BASE` exactly as it would reach Twilio: a small campaign
 * is placed over Twilio's REST API, answered calls fetch their TwiML from the voice webhook and
 * stream over real WebSockets to the media endpoint, signed status callbacks carry the calls'
 * progress; an incoming call is answered by the agent, an incoming SMS delivered twice is
 * stored once, and forged webhooks are refused without a trace. On both storage backends.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Option } from "effect"
import { createServer } from "node:net"
import * as Daemon from "../support/Daemon.ts"
import * as TwilioFake from "../support/twilio-fake/TwilioFake.ts"

interface Conversation {
  readonly call_id: string
  readonly direction: string
  readonly from_number: string
  readonly to_number: string
  readonly termination_reason: string | null
}

/** A port free now on 127.0.0.1: the public URL must be known before the daemon starts. */
const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

const backends = [
  { name: "pglite", env: Effect.succeed({}) as Effect.Effect<Record<string, string>> },
  {
    name: "postgres",
    env: Effect.map(TestDatabase.freshDatabaseUrl("voice_agent_twilio"), (url) => ({ DATABASE_URL: url }))
  }
] as const

describe("the daemon on Twilio (the fake)", () => {
  for (const backend of backends) {
    it.live(
      `${backend.name}: a campaign, an incoming call and SMS, forged webhooks refused`,
      () =>
        Effect.gen(function*() {
          const ours = "+12025550100"
          const fake = yield* TwilioFake.make({ numbers: [{ phoneNumber: ours }], timings: { ringMs: 300 } })
          const port = yield* freePort
          const publicUrl = `http://127.0.0.1:${port}`
          const daemon = yield* Daemon.serve(["--port", String(port), "--data-dir", ":memory:"], {
            ...(yield* backend.env),
            VOICE_AGENT_CARRIER: "twilio",
            TWILIO_ACCOUNT_SID: fake.accountSid,
            TWILIO_AUTH_TOKEN: fake.authToken,
            TWILIO_API_BASE: fake.url,
            VOICE_AGENT_PUBLIC_URL: publicUrl
          })
          const key = Option.getOrThrow(daemon.apiKey)
          yield* fake.configureNumber({
            phoneNumber: ours,
            voiceUrl: `${publicUrl}/carrier/twilio/voice`,
            smsUrl: `${publicUrl}/carrier/twilio/sms`
          })

          // Forged webhooks first: refused, and nothing of them is stored.
          const smsParams = {
            MessageSid: "SM0123456789abcdef0123456789abcdef",
            AccountSid: fake.accountSid,
            From: "+13035550111",
            To: ours,
            Body: "forged"
          }
          for (const forgery of ["missing", "wrong-token", "other-url", "tampered"] as const) {
            const answer = yield* fake.forgeWebhook({
              url: `${publicUrl}/carrier/twilio/sms`,
              params: smsParams,
              forgery
            })
            assert.strictEqual(answer.status, 403, forgery)
          }
          const voiceForged = yield* fake.forgeWebhook({
            url: `${publicUrl}/carrier/twilio/voice`,
            params: {
              CallSid: "CA0",
              AccountSid: fake.accountSid,
              From: "+13035550111",
              To: ours,
              CallStatus: "ringing",
              Direction: "inbound"
            },
            forgery: "wrong-token"
          })
          assert.strictEqual(voiceForged.status, 403)

          // A small campaign through Twilio's REST API.
          const numbers = {
            conversation: "+12025550102",
            voicemail: "+12025550142",
            busy: "+12025550152",
            earlyHangup: "+12025550182"
          }
          const code = yield* Daemon.campaignWithContacts(
            daemon.url,
            key,
            "twilio",
            Object.values(numbers).map((phone_number) => ({ phone_number, data: { name: "Ada" } }))
          )
          for (const number of Object.values(numbers)) {
            yield* daemon.waitFor(new RegExp(`to \\${number} ended:`)).pipe(Effect.timeout("90 seconds"))
          }
          const statuses = new Map(
            ((yield* Daemon.request(`${daemon.url}/v2/contacts?campaign_code=${code}`, Daemon.bearer(key))).body as {
              contacts: ReadonlyArray<{ phone_number: string; status: string }>
            }).contacts.map((c) => [c.phone_number, c.status])
          )
          const conversations = () =>
            Effect.map(
              Daemon.request(`${daemon.url}/v1/conversations`, Daemon.bearer(key)),
              (response) => (response.body as { conversations: ReadonlyArray<Conversation> }).conversations
            )
          const byNumber = new Map((yield* conversations()).map((c) => [c.to_number, c]))
          const expected: Record<string, readonly [status: string, reason: string]> = {
            [numbers.conversation]: ["COMPLETED", "user-hangup"],
            [numbers.voicemail]: ["PARTIALLY_COMPLETED", "voicemail"],
            [numbers.busy]: ["FAILED", "busy"],
            [numbers.earlyHangup]: ["PARTIALLY_COMPLETED", "user-hangup"]
          }
          for (const [number, [status, reason]] of Object.entries(expected)) {
            assert.strictEqual(statuses.get(number), status, number)
            assert.strictEqual(byNumber.get(number)?.termination_reason, reason, number)
          }
          // Twilio saw what a real account would: calls from our number with our webhooks, and
          // answered calls streamed with their token to the public media URL.
          const placed = fake.calls().filter((call) => call.direction === "outbound-api")
          assert.strictEqual(placed.length, 4)
          for (const call of placed) {
            assert.strictEqual(call.from, ours)
            assert.strictEqual(call.request?.get("MachineDetection"), "Enable")
          }
          const talked = byNumber.get(numbers.conversation)!
          const transcript = (yield* Daemon.request(
            `${daemon.url}/v1/conversations/${talked.call_id}/transcript`,
            Daemon.bearer(key)
          )).body as ReadonlyArray<{ speaker: string; text: string }>
          assert.include(transcript.map((t) => t.text), "Yes, I have a moment.", JSON.stringify(transcript))
          const recording = yield* Effect.promise(() =>
            fetch(`${daemon.url}/v1/conversations/${talked.call_id}/channels/mixed/recording`, Daemon.bearer(key))
          )
          assert.strictEqual(recording.status, 200)
          yield* Effect.promise(() => recording.arrayBuffer())

          // An incoming call, answered by the agent and listed as inbound.
          const caller = "+13035550123"
          const sid = yield* fake.incomingCall({ from: caller, to: ours })
          yield* fake.awaitCallDone(sid).pipe(Effect.timeout("60 seconds"))
          yield* daemon.waitFor(/Inbound call \S+ ended: user-hangup/).pipe(Effect.timeout("30 seconds"))
          const inbound = (yield* conversations()).filter((c) => c.direction === "inbound")
          assert.strictEqual(inbound.length, 1)
          assert.strictEqual(inbound[0]!.from_number, caller)
          assert.strictEqual(inbound[0]!.to_number, ours)
          assert.strictEqual(inbound[0]!.termination_reason, "user-hangup")
          // an incoming call to a number that is not ours is rejected
          yield* fake.configureNumber({ phoneNumber: "+12025550199", voiceUrl: `${publicUrl}/carrier/twilio/voice` })
          const stranger = yield* fake.incomingCall({ from: caller, to: "+12025550199" })
          const rejected = yield* fake.awaitCallDone(stranger).pipe(Effect.timeout("30 seconds"))
          assert.notStrictEqual(rejected.status, "completed")

          // An incoming SMS, delivered twice (a Twilio retry): stored once.
          const answers = yield* fake.incomingSms({
            from: "+13035550111",
            to: ours,
            body: "Call me back",
            deliveries: 2
          })
          assert.deepStrictEqual(answers.map((a) => a.status), [200, 200])
          const messages = (yield* Daemon.request(
            `${daemon.url}/v1/messages?to_number=${encodeURIComponent(ours)}`,
            Daemon.bearer(key)
          )).body as { messages: ReadonlyArray<{ content: string; from_number: string }> }
          assert.deepStrictEqual(messages.messages.map((m) => [m.from_number, m.content]), [[
            "+13035550111",
            "Call me back"
          ]])
          assert.strictEqual(yield* daemon.stop(), 0)
        }),
      { timeout: 180_000 }
    )
  }

  it.live(
    "a missing or malformed Twilio setting stops serve at start with a sentence naming it, no secret printed",
    () =>
      Effect.gen(function*() {
        const base = {
          VOICE_AGENT_CARRIER: "twilio",
          TWILIO_ACCOUNT_SID: `AC${"0".repeat(32)}`,
          TWILIO_AUTH_TOKEN: "very-secret-token",
          VOICE_AGENT_PUBLIC_URL: "https://voice.example.com"
        }
        const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
          [{ ...base, TWILIO_ACCOUNT_SID: "" }, "TWILIO_ACCOUNT_SID"],
          [{ ...base, TWILIO_ACCOUNT_SID: "AC123" }, "TWILIO_ACCOUNT_SID"],
          [{ ...base, TWILIO_AUTH_TOKEN: "" }, "TWILIO_AUTH_TOKEN"],
          [{ ...base, VOICE_AGENT_PUBLIC_URL: "" }, "VOICE_AGENT_PUBLIC_URL"],
          [{ ...base, VOICE_AGENT_PUBLIC_URL: "ftp://x" }, "VOICE_AGENT_PUBLIC_URL"],
          [{ ...base, TWILIO_API_BASE: "not a url" }, "TWILIO_API_BASE"]
        ]
        for (const [env, variable] of cases) {
          const result = yield* Daemon.cli(["serve", "--port", "0", "--data-dir", ":memory:"], env)
          assert.strictEqual(result.code, 1, `${variable}: ${result.stdout}`)
          assert.include(result.stderr, variable)
          assert.notInclude(result.stdout + result.stderr, "very-secret-token")
          assert.notInclude(result.stdout, "ready on")
        }
      }),
    { timeout: 120_000 }
  )
})
