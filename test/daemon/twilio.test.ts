/**
 * The daemon on Twilio, end to end against the local Twilio fake (test/support/twilio-fake),
 * which it reaches through `TWILIO_API_BASE` exactly as it would reach Twilio: a small campaign
 * is placed over Twilio's REST API, answered calls fetch their TwiML from the voice webhook and
 * stream over real WebSockets to the media endpoint, signed status callbacks carry the calls'
 * progress; an incoming call is answered by the agent, an incoming SMS delivered twice is
 * stored once, and forged webhooks are refused without a trace. On both storage backends.
 *
 * What Twilio says of calls (docs/TWILIO.md, "Twilio's figures"), with answering machine
 * detection that listens 2.5 s after the answer as Twilio's does:
 *
 * - a call's `duration_sec` is Twilio's `CallDuration` (the fake's own answer-to-hang-up time),
 *   whether the final status callback comes before the engine ends the call (placed calls: their
 *   end is that callback) or after (an incoming call, its callback held back until the engine
 *   has ended it);
 * - status callbacks without our `call_id` (a number's console "call status changes" URL) are
 *   matched by `CallSid`; one for a call we do not know is acknowledged 204, a forged one is
 *   still 403;
 * - an incoming call the listening SDK agent declines is rejected (`<Reject/>`) and listed as
 *   an inbound conversation never answered, and its console callback finds it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Option } from "effect"
import { createServer } from "node:net"
import * as Daemon from "../support/Daemon.ts"
import * as Replay from "../support/guava-sdk/Agent.ts"
import { fastTiming } from "../support/guava-sdk/GuavaSocket.ts"
import * as TwilioFake from "../support/twilio-fake/TwilioFake.ts"

interface Conversation {
  readonly call_id: string
  readonly direction: string
  readonly from_number: string
  readonly to_number: string
  readonly duration_sec: number | null
  readonly termination_reason: string | null
}

/** Twilio's answering machine detection listens this long after the answer (it takes seconds). */
const machineDetectionMs = 2_500

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

/**
 * The Twilio fake with the demo number and a daemon on it (`VOICE_AGENT_CARRIER=twilio`, the
 * fake as `TWILIO_API_BASE`), with the demo organization's key.
 */
const onTwilio = (env: Record<string, string>, timings: Partial<TwilioFake.Timings>) =>
  Effect.gen(function*() {
    const ours = "+12025550100"
    const fake = yield* TwilioFake.make({ numbers: [{ phoneNumber: ours }], timings })
    const port = yield* freePort
    const publicUrl = `http://127.0.0.1:${port}`
    const daemon = yield* Daemon.serve(["--port", String(port), "--data-dir", ":memory:"], {
      ...env,
      VOICE_AGENT_CARRIER: "twilio",
      TWILIO_ACCOUNT_SID: fake.accountSid,
      TWILIO_AUTH_TOKEN: fake.authToken,
      TWILIO_API_BASE: fake.url,
      VOICE_AGENT_PUBLIC_URL: publicUrl
    })
    return { fake, daemon, publicUrl, ours, key: Option.getOrThrow(daemon.apiKey) }
  })

describe("the daemon on Twilio (the fake)", () => {
  for (const backend of backends) {
    it.live(
      `${backend.name}: a campaign, an incoming call and SMS, forged webhooks refused`,
      () =>
        Effect.gen(function*() {
          const { daemon, fake, key, ours, publicUrl } = yield* onTwilio(yield* backend.env, { ringMs: 300 })
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
            // What the daemon said of the call, for a failure to explain itself.
            const callId = byNumber.get(number)?.call_id
            const said = `${number}:\n${
              daemon.stdout.filter((line) => callId !== undefined && line.includes(callId)).join("\n")
            }`
            assert.strictEqual(statuses.get(number), status, said)
            assert.strictEqual(byNumber.get(number)?.termination_reason, reason, said)
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
          assert.include(
            transcript.map((t) => t.text),
            "Yes, I have a moment.",
            `${JSON.stringify(transcript)}\n${daemon.stdout.filter((line) => line.includes(talked.call_id)).join("\n")}`
          )
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

    it.live(
      `${backend.name}: Twilio's CallDuration, callbacks matched by CallSid, a declined incoming call recorded`,
      () =>
        Effect.gen(function*() {
          const { daemon, fake, key, ours, publicUrl } = yield* onTwilio(yield* backend.env, {
            ringMs: 300,
            machineDetectionMs
          })
          const stranger = "+12025550199"
          // Both numbers with the console's status callback URL: no call_id of ours in it.
          const statusUrl = `${publicUrl}/carrier/twilio/status`
          for (const phoneNumber of [ours, stranger]) {
            yield* fake.configureNumber({
              phoneNumber,
              voiceUrl: `${publicUrl}/carrier/twilio/voice`,
              statusCallback: statusUrl
            })
          }
          const conversations = Effect.map(
            Daemon.request(`${daemon.url}/v1/conversations`, Daemon.bearer(key)),
            (response) => (response.body as { conversations: ReadonlyArray<Conversation> }).conversations
          )
          const conversation = (callId: string) =>
            Effect.map(conversations, (all) => all.find((c) => c.call_id === callId))
          const statusCallbacksOf = (sid: string) =>
            fake.webhooks.filter((w) => w.kind === "call-status" && w.sid === sid)

          // Placed calls: a conversation, and a person who hangs up early (a short call).
          const numbers = { conversation: "+12025550102", earlyHangup: "+12025550182" }
          yield* Daemon.campaignWithContacts(
            daemon.url,
            key,
            "twilio-durations",
            Object.values(numbers).map((phone_number) => ({ phone_number, data: { name: "Ada" } }))
          )
          for (const number of Object.values(numbers)) {
            yield* daemon.waitFor(new RegExp(`to \\${number} ended:`)).pipe(Effect.timeout("90 seconds"))
            const placed = fake.calls().find((call) => call.direction === "outbound-api" && call.to === number)!
            yield* fake.awaitCallDone(placed.sid).pipe(Effect.timeout("30 seconds"))
          }
          const byNumber = new Map((yield* conversations).map((c) => [c.to_number, c]))
          for (const number of Object.values(numbers)) {
            const twilio = fake.calls().find((call) => call.direction === "outbound-api" && call.to === number)!
            assert.strictEqual(twilio.status, "completed", number)
            const completed = statusCallbacksOf(twilio.sid).at(-1)!
            assert.strictEqual(completed.params.get("CallDuration"), String(twilio.duration), number)
            assert.strictEqual(completed.status, 204, number)
            assert.strictEqual(byNumber.get(number)?.duration_sec, twilio.duration, number)
          }
          // The short call: Twilio counts it from its answer (before the detection), not 0.
          assert.isAtLeast(byNumber.get(numbers.earlyHangup)!.duration_sec!, 2)

          // An incoming call, whose end Twilio reports only to the number's console URL, after
          // the engine has ended the call by itself.
          const release = yield* fake.holdStatusCallbacks
          const caller = "+13035550123"
          const incoming = yield* fake.incomingCall({ from: caller, to: ours })
          const endLine = yield* daemon.waitFor(/Inbound call \S+ ended: user-hangup/).pipe(
            Effect.timeout("60 seconds")
          )
          const inboundId = /Inbound call (\S+) ended/.exec(endLine)![1]!
          assert.deepStrictEqual(statusCallbacksOf(incoming), [])
          yield* release
          const answered = yield* fake.awaitCallDone(incoming).pipe(Effect.timeout("30 seconds"))
          const [consoleCallback, ...more] = statusCallbacksOf(incoming)
          assert.deepStrictEqual(more, [])
          assert.strictEqual(consoleCallback!.url, statusUrl)
          assert.strictEqual(consoleCallback!.params.get("CallStatus"), "completed")
          assert.strictEqual(consoleCallback!.status, 204, consoleCallback!.body)
          const inbound = (yield* conversation(inboundId))!
          assert.strictEqual(inbound.direction, "inbound")
          assert.strictEqual(inbound.termination_reason, "user-hangup")
          assert.strictEqual(inbound.duration_sec, answered.duration)

          // A forged callback without call_id is refused and changes nothing.
          const forged = yield* fake.forgeWebhook({
            url: statusUrl,
            params: {
              CallSid: incoming,
              AccountSid: fake.accountSid,
              CallStatus: "completed",
              CallDuration: "999"
            },
            forgery: "wrong-token"
          })
          assert.strictEqual(forged.status, 403)
          assert.strictEqual((yield* conversation(inboundId))!.duration_sec, answered.duration)

          // A call to a number nobody here owns: rejected; its console callback is not an error.
          const strangerCall = yield* fake.incomingCall({ from: caller, to: stranger })
          const rejected = yield* fake.awaitCallDone(strangerCall).pipe(Effect.timeout("30 seconds"))
          assert.strictEqual(rejected.status, "no-answer")
          assert.deepStrictEqual(statusCallbacksOf(strangerCall).map((w) => w.status), [204])
          yield* daemon.waitFor(new RegExp(`${strangerCall} \\(no-answer\\): not a call of ours`))

          // An SDK agent listening on our number declines the next call: Twilio gets <Reject/>,
          // and the call is listed like any call that reached the number, never answered.
          const sdk = new Replay.GuavaSdk({
            baseUrl: `${daemon.url}/`,
            apiKey: key,
            telemetry: false,
            timing: { socket: fastTiming({ recvTimeoutMs: 500 }) }
          })
          yield* Effect.addFinalizer(() => Effect.promise(() => sdk.shutdown()))
          const agent = yield* Effect.promise(() =>
            Replay.Agent.create(sdk, { hooks: { onCallReceived: () => "decline" } })
          )
          const listener = agent.listenPhone(ours)
          assert.strictEqual(yield* Effect.promise(() => listener.waitStarted()), 0)
          const declinedSid = yield* fake.incomingCall({ from: caller, to: ours })
          const declinedCall = yield* fake.awaitCallDone(declinedSid).pipe(Effect.timeout("30 seconds"))
          assert.strictEqual(declinedCall.status, "no-answer")
          assert.include(declinedCall.documents[0], "<Reject/>")
          assert.strictEqual(listener.declined.length, 1)
          const declinedId = listener.declined[0]!
          const declined = (yield* conversation(declinedId))!
          assert.deepStrictEqual(declined, {
            ...declined,
            direction: "inbound",
            from_number: caller,
            to_number: ours,
            duration_sec: 0,
            termination_reason: "no-answer"
          })
          // Its console callback found it by CallSid.
          assert.deepStrictEqual(statusCallbacksOf(declinedSid).map((w) => w.status), [204])
          assert.isFalse(daemon.stdout.some((line) => line.includes(`${declinedSid} (no-answer): not a call of ours`)))
          assert.deepStrictEqual(yield* Daemon.callTraces(daemon.url, key, declinedId), {
            transcript: [],
            recordings: [404, 404, 404]
          })
          yield* Effect.promise(() => listener.stop())
          assert.strictEqual(yield* daemon.stop(), 0)
        }),
      { timeout: 240_000 }
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
