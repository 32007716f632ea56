/**
 * What Twilio says of calls, on the daemon against the local Twilio fake, on both storage
 * backends (docs/TWILIO.md, "Twilio's figures"):
 *
 * - a call's `duration_sec` is Twilio's `CallDuration` (the fake's own answer-to-hang-up time,
 *   answering machine detection included), whether the final status callback comes before the
 *   engine ends the call (placed calls: their end is that callback) or after (an incoming call,
 *   its callback held back until the engine has ended it);
 * - status callbacks without our `call_id` (a number's console "call status changes" URL) are
 *   matched by `CallSid`; one for a call we do not know is acknowledged 204, a forged one is
 *   still 403;
 * - an incoming call the listening remote agent declines is rejected (`<Reject/>`) and listed as
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
    env: Effect.map(TestDatabase.freshDatabaseUrl("voice_agent_twilio_status"), (url) => ({ DATABASE_URL: url }))
  }
] as const

/** Twilio's answering machine detection listens this long after the answer (it takes seconds). */
const machineDetectionMs = 2_500

describe("Twilio's figures and status callbacks, on the daemon (the fake)", () => {
  for (const backend of backends) {
    it.live(
      `${backend.name}: Twilio's CallDuration, callbacks matched by CallSid, a declined incoming call recorded`,
      () =>
        Effect.gen(function*() {
          const ours = "+12025550100"
          const stranger = "+12025550199"
          const fake = yield* TwilioFake.make({
            numbers: [{ phoneNumber: ours }],
            timings: { ringMs: 300, machineDetectionMs }
          })
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

          // A remote agent listening on our number declines the next call: Twilio gets <Reject/>,
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
          const transcript = yield* Daemon.request(
            `${daemon.url}/v1/conversations/${declinedId}/transcript`,
            Daemon.bearer(key)
          )
          assert.deepStrictEqual(transcript.body, [])
          for (const channel of ["agent", "remote", "mixed"]) {
            const recording = yield* Daemon.request(
              `${daemon.url}/v1/conversations/${declinedId}/channels/${channel}/recording`,
              Daemon.bearer(key)
            )
            assert.strictEqual(recording.status, 404, channel)
          }
          yield* Effect.promise(() => listener.stop())
          assert.strictEqual(yield* daemon.stop(), 0)
        }),
      { timeout: 240_000 }
    )
  }
})
