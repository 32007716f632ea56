/**
 * The fake Twilio against a tiny local "our side": an HTTP server that answers its webhooks
 * (checking every signature with Twilio's published algorithm, written out here apart from the
 * fake's) and a WebSocket media endpoint that reads the stream. Checks the REST errors, the
 * status callbacks per outcome, the TwiML it follows, the Media Stream's handshake, inbound
 * calls and messages, and forged webhooks.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import { Duration, Effect } from "effect"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import * as TwilioFake from "./TwilioFake.ts"

/** Twilio's algorithm (twilio-node `getExpectedTwilioSignature`), for single-valued parameters. */
const officialSignature = (authToken: string, url: string, params: URLSearchParams): string => {
  const data = [...params.keys()].sort().reduce((acc, key) => acc + key + params.get(key), url)
  return createHmac("sha1", authToken).update(Buffer.from(data, "utf-8")).digest("base64")
}

/** A webhook our side received. */
interface Received {
  readonly method: string
  readonly path: string
  readonly form: URLSearchParams
  readonly valid: boolean
}

/** A media stream our side accepted. */
interface Stream {
  readonly path: string
  readonly signature: string | undefined
  readonly valid: boolean
  readonly messages: Array<{ readonly event: string; readonly [key: string]: unknown }>
  closed: "by-us" | "by-twilio" | undefined
}

const ourNumber = "+12025550100"

/**
 * Our side: answers `/voice` with `voice(form)` (TwiML), `/status`, `/sms-status` with 204,
 * `/sms` with an empty `<Response>`, anything unsigned with 403; `/media` reads the stream and,
 * when its `mode` parameter is `close`, closes it after five media frames.
 */
const ourSide = (authToken: () => string, voice: (form: URLSearchParams, base: string) => string) =>
  Effect.gen(function*() {
    const received: Array<Received> = []
    const streams: Array<Stream> = []
    const listeners = new Set<() => void>()
    const changed = () => {
      for (const listener of listeners) listener()
    }
    const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1" }).pipe(Effect.orDie)
    const base = HttpServer.formatAddress(server.address)
    const wsBase = base.replace(/^http/, "ws")

    const media = (request: HttpServerRequest.HttpServerRequest, path: string) =>
      Effect.gen(function*() {
        const signature = request.headers["x-twilio-signature"]
        const stream: Stream = {
          path: request.url,
          signature,
          valid: signature === officialSignature(authToken(), `${wsBase}${path}`, new URLSearchParams()),
          messages: [],
          closed: undefined
        }
        const socket = yield* request.upgrade
        streams.push(stream)
        changed()
        yield* Effect.scoped(Effect.gen(function*() {
          const end = yield* SocketMedia.fromSocket(socket)
          let frames = 0
          while (true) {
            const texts = yield* end.read
            if (texts === undefined) {
              stream.closed ??= "by-twilio"
              return changed()
            }
            for (const text of texts) {
              const message = JSON.parse(text) as Stream["messages"][number]
              stream.messages.push(message)
              if (message.event === "media") frames++
            }
            changed()
            const start = stream.messages.find((m) => m.event === "start")?.start as
              | { customParameters: Record<string, string> }
              | undefined
            if (start?.customParameters.mode === "close" && frames >= 5) {
              stream.closed = "by-us"
              changed()
              return yield* end.close
            }
          }
        }))
        return HttpServerResponse.empty()
      }).pipe(Effect.orDie)

    yield* server.serve(Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = new URL(request.url, base).pathname
      if (path === "/media") return yield* media(request, path)
      const form = request.method === "POST"
        ? new URLSearchParams(yield* Effect.orDie(request.text))
        : new URLSearchParams()
      const valid =
        request.headers["x-twilio-signature"] === officialSignature(authToken(), `${base}${request.url}`, form)
      received.push({
        method: request.method,
        path,
        form: request.method === "POST" ? form : new URL(request.url, base).searchParams,
        valid
      })
      changed()
      if (!valid) return HttpServerResponse.text("Forbidden", { status: 403 })
      switch (path) {
        case "/voice":
          return HttpServerResponse.text(voice(form, wsBase), { contentType: "text/xml" })
        case "/sms":
          return HttpServerResponse.text("<Response></Response>", { contentType: "text/xml" })
        default:
          return HttpServerResponse.empty({ status: 204 })
      }
    }))

    const waitFor = <A>(look: () => A | undefined): Effect.Effect<A> =>
      Effect.callback<A>((resume) => {
        const check = () => {
          const found = look()
          if (found === undefined) return
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
        listeners.add(check)
        check()
        return Effect.sync(() => void listeners.delete(check))
      }).pipe(Effect.timeout(Duration.seconds(10)), Effect.orDie)

    return { base, wsBase, received, streams, waitFor }
  })

/** The TwiML our side answers: a stream with a token and a mode (query string to be dropped). */
const connect = (wsBase: string, token: string, mode: "close" | "hold") =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${wsBase}/media?dropped=1">` +
  `<Parameter name="token" value="${token}"/><Parameter name="mode" value="${mode}"/></Stream></Connect></Response>`

/** A fake with fast timings, our number, and our side answering with `voice`. */
const setup = (voice: (form: URLSearchParams, wsBase: string) => string, timings: Partial<TwilioFake.Timings> = {}) =>
  Effect.gen(function*() {
    let token = ""
    const ours = yield* ourSide(() => token, voice)
    const fake = yield* TwilioFake.make({
      apiKeys: [{ sid: "SK00000000000000000000000000000001", secret: "key-secret" }],
      numbers: [{
        phoneNumber: ourNumber,
        voiceUrl: `${ours.base}/voice`,
        statusCallback: `${ours.base}/status`,
        smsUrl: `${ours.base}/sms`
      }],
      timings: { queuedMs: 20, ringMs: 50, noAnswerMs: 150, messageStepMs: 20, ...timings }
    })
    token = fake.authToken
    const auth = `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString("base64")}`
    const rest = (
      method: "GET" | "POST",
      path: string,
      form?: Record<string, string | ReadonlyArray<string> | undefined>,
      authorization = auth
    ) =>
      Effect.promise(async () => {
        const body = new URLSearchParams()
        for (const [name, value] of Object.entries(form ?? {})) {
          for (const v of typeof value === "string" ? [value] : value ?? []) body.append(name, v)
        }
        const response = await fetch(`${fake.url}/2010-04-01/Accounts/${fake.accountSid}${path}`, {
          method,
          headers: {
            authorization,
            ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {})
          },
          ...(method === "POST" ? { body } : {})
        })
        return {
          status: response.status,
          headers: response.headers,
          json: await response.json() as Record<string, unknown>
        }
      })
    const dial = (to: string, extra: Record<string, string | ReadonlyArray<string> | undefined> = {}) =>
      rest("POST", "/Calls.json", {
        To: to,
        From: ourNumber,
        Url: `${ours.base}/voice`,
        StatusCallback: `${ours.base}/status`,
        StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
        ...extra
      })
    return { fake, ours, rest, dial, auth }
  })

const statusCallbacks = (ours: { readonly received: ReadonlyArray<Received> }, sid: string) =>
  ours.received.filter((r) => r.path === "/status" && r.form.get("CallSid") === sid)

const RFC_2822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} \+0000$/

describe("TwilioFake REST", () => {
  it.live("answers Twilio's errors: 401, 400, 404, 429; accepts an API key", () =>
    Effect.gen(function*() {
      const { dial, fake, rest } = yield* setup(() => "<Response/>")
      const wrong = `Basic ${Buffer.from(`${fake.accountSid}:nope`).toString("base64")}`
      const refused = yield* rest("GET", "/Calls.json", undefined, wrong)
      assert.strictEqual(refused.status, 401)
      assert.deepStrictEqual(refused.json, {
        code: 20003,
        message: "Authenticate",
        more_info: "https://www.twilio.com/docs/errors/20003",
        status: 401
      })
      assert.strictEqual((yield* rest("POST", "/Calls.json", { To: "+12025550101" }, "")).status, 401)
      const key = `Basic ${Buffer.from("SK00000000000000000000000000000001:key-secret").toString("base64")}`
      assert.strictEqual((yield* rest("GET", "/Calls.json", undefined, key)).status, 200)

      const noTo = yield* rest("POST", "/Calls.json", { From: ourNumber, Url: "http://x/voice" })
      assert.strictEqual(noTo.status, 400)
      assert.strictEqual(noTo.json.code, 21201)
      assert.strictEqual(noTo.json.status, 400)
      assert.strictEqual((yield* dial("+12025550101", { From: "+12025550199" })).json.code, 21210)
      assert.strictEqual((yield* dial("12025550101")).json.code, 21211)
      assert.strictEqual(
        (yield* rest("POST", "/Messages.json", { To: "+12025550101", From: ourNumber })).json.code,
        21602
      )

      const unknown = yield* rest("POST", "/Calls/CA00000000000000000000000000000000.json", { Status: "completed" })
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(unknown.json.code, 20404)

      yield* fake.throttle(2)
      for (let i = 0; i < 2; i++) {
        const limited = yield* rest("GET", "/Calls.json")
        assert.strictEqual(limited.status, 429)
        assert.deepStrictEqual(limited.json, {
          code: 20429,
          message: "Too Many Requests",
          more_info: "https://www.twilio.com/docs/errors/20429",
          status: 429
        })
      }
      assert.strictEqual((yield* rest("GET", "/Calls.json")).status, 200)
      assert.deepStrictEqual(fake.requests.map((r) => r.status), [
        401,
        401,
        200,
        400,
        400,
        400,
        400,
        404,
        429,
        429,
        200
      ])
      assert.strictEqual(fake.requests[0]!.user, fake.accountSid)
      assert.strictEqual(fake.calls().length, 0)
    }))

  it.live("lets the account's numbers be read and their webhooks set", () =>
    Effect.gen(function*() {
      const { fake, rest } = yield* setup(() => "<Response/>")
      const found = yield* rest("GET", `/IncomingPhoneNumbers.json?PhoneNumber=${encodeURIComponent(ourNumber)}`)
      const [number] = found.json.incoming_phone_numbers as Array<{ sid: string; phone_number: string }>
      assert.strictEqual(number?.phone_number, ourNumber)
      const updated = yield* rest("POST", `/IncomingPhoneNumbers/${number!.sid}.json`, {
        VoiceUrl: "https://example.com/voice",
        SmsMethod: "GET"
      })
      assert.strictEqual(updated.json.voice_url, "https://example.com/voice")
      assert.strictEqual(updated.json.sms_method, "GET")
      assert.strictEqual(fake.requests.length, 2)
    }))
})

describe("TwilioFake calls", () => {
  it.live("an answered call: signed callbacks in order, TwiML fetched, a signed stream; our closing it completes the call", () =>
    Effect.gen(function*() {
      const { dial, fake, ours } = yield* setup((form, wsBase) =>
        connect(wsBase, `tok-${form.get("CallSid")}`, "close")
      )
      const created = yield* dial("+12025550101")
      assert.strictEqual(created.status, 201)
      const sid = created.json.sid as string
      assert.match(sid, /^CA[0-9a-f]{32}$/)
      assert.strictEqual(created.json.status, "queued")
      assert.strictEqual(created.json.direction, "outbound-api")
      assert.strictEqual(created.json.to, "+12025550101")
      assert.strictEqual(created.json.from, ourNumber)
      assert.strictEqual(created.json.account_sid, fake.accountSid)

      const call = yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(10)))
      assert.strictEqual(call.status, "completed")
      assert.deepStrictEqual(call.progress, ["initiated", "ringing", "in-progress", "completed"])
      assert.strictEqual(call.stream?.endedBy, "server")

      const callbacks = statusCallbacks(ours, sid)
      assert.deepStrictEqual(callbacks.map((c) => c.form.get("CallStatus")), [
        "initiated",
        "ringing",
        "in-progress",
        "completed"
      ])
      assert.deepStrictEqual(callbacks.map((c) => c.form.get("SequenceNumber")), ["0", "1", "2", "3"])
      for (const callback of callbacks) {
        assert.isTrue(callback.valid, "signed")
        assert.strictEqual(callback.form.get("CallbackSource"), "call-progress-events")
        assert.strictEqual(callback.form.get("AccountSid"), fake.accountSid)
        assert.strictEqual(callback.form.get("From"), ourNumber)
        assert.strictEqual(callback.form.get("To"), "+12025550101")
        assert.strictEqual(callback.form.get("Direction"), "outbound-api")
        assert.strictEqual(callback.form.get("ApiVersion"), "2010-04-01")
        assert.match(callback.form.get("Timestamp") ?? "", RFC_2822)
        assert.isFalse(callback.form.has("AnsweredBy"))
      }
      assert.deepStrictEqual(callbacks.map((c) => c.form.has("CallDuration")), [false, false, false, true])
      assert.strictEqual(callbacks[3]!.form.get("CallDuration"), String(call.duration))

      const voice = ours.received.filter((r) => r.path === "/voice")
      assert.strictEqual(voice.length, 1)
      assert.isTrue(voice[0]!.valid)
      assert.strictEqual(voice[0]!.form.get("CallStatus"), "in-progress")
      assert.strictEqual(voice[0]!.form.get("CallSid"), sid)
      // and every request the fake made was answered by our side
      assert.deepStrictEqual(
        fake.webhooks.map((w) => `${w.kind} ${w.status}`).sort(),
        ["call-status 204", "call-status 204", "call-status 204", "call-status 204", "voice 200"]
      )

      // The stream: the query string dropped, the upgrade signed over the ws:// URL, then
      // `connected`, `start` with the parameters, media.
      const [stream] = ours.streams
      assert.strictEqual(stream?.path, "/media")
      assert.isTrue(stream!.valid, "x-twilio-signature on the upgrade")
      assert.strictEqual(stream!.signature, call.stream?.signature)
      assert.strictEqual(call.stream?.connectUrl, `${ours.wsBase}/media`)
      const [connected, start, firstMedia] = stream!.messages
      assert.deepStrictEqual(connected, { event: "connected", protocol: "Call", version: "1.0.0" })
      assert.deepStrictEqual(start, {
        event: "start",
        sequenceNumber: "1",
        start: {
          accountSid: fake.accountSid,
          streamSid: call.stream!.streamSid,
          callSid: sid,
          tracks: ["inbound"],
          mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
          customParameters: { token: `tok-${sid}`, mode: "close" }
        },
        streamSid: call.stream!.streamSid
      })
      assert.strictEqual(firstMedia?.event, "media")
      assert.match(call.stream!.streamSid, /^MZ[0-9a-f]{32}$/)
      assert.strictEqual(stream!.closed, "by-us")
    }))

  it.live("busy, no-answer and failed end unanswered, with their status and no TwiML", () =>
    Effect.gen(function*() {
      const { dial, fake, ours } = yield* setup(() => "<Response/>")
      const expected = {
        "+12025550151": "busy",
        "+12025550161": "no-answer",
        "+12025550171": "failed"
      } as const
      for (const [to, status] of Object.entries(expected)) {
        const sid = (yield* dial(to)).json.sid as string
        const call = yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(10)))
        assert.strictEqual(call.status, status, to)
        assert.deepStrictEqual(statusCallbacks(ours, sid).map((c) => c.form.get("CallStatus")), [
          "initiated",
          "ringing",
          status
        ])
        assert.strictEqual(statusCallbacks(ours, sid)[2]!.form.get("CallDuration"), "0")
      }
      assert.isFalse(ours.received.some((r) => r.path === "/voice"))
    }))

  it.live("machine detection and a REST hang-up: AnsweredBy, then `stop`, the stream closed, `completed` only", () =>
    Effect.gen(function*() {
      const { dial, fake, ours, rest } = yield* setup((form, wsBase) => connect(wsBase, form.get("CallSid")!, "hold"))
      // No StatusCallbackEvent: Twilio sends only `completed`.
      const created = yield* dial("+12025550141", { MachineDetection: "Enable", StatusCallbackEvent: [] })
      const sid = created.json.sid as string
      yield* ours.waitFor(() => ours.streams[0]?.messages.some((m) => m.event === "media") || undefined)
      const hungUp = yield* rest("POST", `/Calls/${sid}.json`, { Status: "completed" })
      assert.strictEqual(hungUp.status, 200)
      assert.strictEqual(hungUp.json.status, "completed")
      assert.strictEqual(hungUp.json.answered_by, "machine_start")
      const call = yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(10)))
      assert.strictEqual(call.stream?.endedBy, "carrier")
      yield* ours.waitFor(() => ours.streams[0]?.closed)
      assert.strictEqual(ours.streams[0]!.closed, "by-twilio")
      assert.strictEqual(ours.streams[0]!.messages.at(-1)?.event, "stop")

      assert.strictEqual(ours.received.find((r) => r.path === "/voice")?.form.get("AnsweredBy"), "machine_start")
      const callbacks = statusCallbacks(ours, sid)
      assert.deepStrictEqual(
        callbacks.map((c) => [c.form.get("CallStatus"), c.form.get("SequenceNumber"), c.form.get("AnsweredBy")]),
        [["completed", "0", "machine_start"]]
      )
      // Hanging up again is harmless; an ended call stays ended.
      assert.strictEqual((yield* rest("POST", `/Calls/${sid}.json`, { Status: "completed" })).json.status, "completed")
    }))

  it.live("machine detection listens after the answer before the Url is requested; CallDuration counts it", () =>
    Effect.gen(function*() {
      const detectionMs = 400
      const { dial, fake, ours } = yield* setup(
        (form, wsBase) => connect(wsBase, form.get("CallSid")!, "close"),
        { machineDetectionMs: detectionMs }
      )
      const sid = (yield* dial("+12025550102", { MachineDetection: "Enable" })).json.sid as string
      const call = yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(10)))
      assert.strictEqual(ours.received.find((r) => r.path === "/voice")?.form.get("AnsweredBy"), "human")
      // The fake's own answer-to-hang-up time, the detection included (the stream opens only
      // after it), in whole seconds rounded up.
      const heldMs = call.endedAt! - call.answeredAt!
      assert.isAtLeast(heldMs, detectionMs)
      assert.strictEqual(call.duration, Math.ceil(heldMs / 1000))
      const completed = statusCallbacks(ours, sid).at(-1)!
      assert.strictEqual(completed.form.get("CallStatus"), "completed")
      assert.strictEqual(completed.form.get("CallDuration"), String(call.duration))
      assert.strictEqual(completed.form.get("Duration"), String(Math.ceil(call.duration! / 60)))
    }))

  it.live("a Twiml update of a call in progress: `stop` on the stream, then <Dial>; refused when not in progress", () =>
    Effect.gen(function*() {
      const { dial, fake, ours, rest } = yield* setup((form, wsBase) => connect(wsBase, form.get("CallSid")!, "hold"))
      const sid = (yield* dial("+12025550190")).json.sid as string
      yield* ours.waitFor(() => ours.streams[0]?.messages.some((m) => m.event === "media") || undefined)
      const dialing = `<?xml version="1.0" encoding="UTF-8"?><Response><Dial>+12025550103</Dial></Response>`
      const updated = yield* rest("POST", `/Calls/${sid}.json`, { Twiml: dialing })
      assert.strictEqual(updated.status, 200)
      assert.strictEqual(updated.json.status, "in-progress")
      // Twilio stops the stream (`stop`, then closes it) and bridges the call to the number.
      yield* ours.waitFor(() => ours.streams[0]?.closed)
      assert.strictEqual(ours.streams[0]!.closed, "by-twilio")
      assert.strictEqual(ours.streams[0]!.messages.at(-1)?.event, "stop")
      const bridged = yield* fake.waitFor(() => fake.call(sid)?.dialed.length === 1 ? fake.call(sid) : undefined)
      assert.deepStrictEqual(bridged.dialed, ["+12025550103"])
      assert.strictEqual(bridged.documents.at(-1), dialing)
      assert.strictEqual(bridged.stream?.endedBy, "redirected")
      assert.strictEqual(bridged.status, "in-progress")
      // The dialed person talks, hangs up, and with no verb left the call completes.
      const call = yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(15)))
      assert.strictEqual(call.status, "completed")
      assert.strictEqual(statusCallbacks(ours, sid).at(-1)?.form.get("CallStatus"), "completed")
      // Over now: a second update is refused as Twilio refuses it.
      const late = yield* rest("POST", `/Calls/${sid}.json`, { Twiml: dialing })
      assert.strictEqual(late.status, 400)
      assert.strictEqual(late.json.code, 21220)
      assert.strictEqual(late.json.message, "Call is not in-progress. Cannot redirect.")
    }))

  it.live("held status callbacks wait until released, then go in order", () =>
    Effect.gen(function*() {
      const { dial, fake, ours } = yield* setup(() => "<Response/>")
      const release = yield* fake.holdStatusCallbacks
      const sid = (yield* dial("+12025550151")).json.sid as string
      yield* fake.waitFor(() => fake.call(sid)?.status === "busy" || undefined)
      assert.deepStrictEqual(statusCallbacks(ours, sid), [])
      yield* release
      yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(10)))
      assert.deepStrictEqual(statusCallbacks(ours, sid).map((c) => c.form.get("CallStatus")), [
        "initiated",
        "ringing",
        "busy"
      ])
    }))

  it.live("inline Twiml, and a person who hangs up early: `stop` from Twilio, then `completed`", () =>
    Effect.gen(function*() {
      const { dial, fake, ours } = yield* setup(() => "<Response/>")
      const sid = (yield* dial("+12025550181", { Url: undefined, Twiml: connect(ours.wsBase, "inline", "hold") }))
        .json.sid as string
      const call = yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(10)))
      assert.strictEqual(call.status, "completed")
      assert.isFalse(ours.received.some((r) => r.path === "/voice"))
      assert.strictEqual(call.stream?.customParameters.token, "inline")
      assert.strictEqual(call.stream?.endedBy, "person")
      yield* ours.waitFor(() => ours.streams[0]?.closed)
      assert.strictEqual(ours.streams[0]!.messages.at(-1)?.event, "stop")
      // the person spoke: some inbound frame is not silence
      assert.isTrue(
        ours.streams[0]!.messages.some((m) =>
          m.event === "media" && !/^\/+w==$/.test((m.media as { payload: string }).payload)
        )
      )
    }))

  it.live("canceling a ringing call ends it `canceled`", () =>
    Effect.gen(function*() {
      const { dial, fake, ours, rest } = yield* setup(() => "<Response/>", { noAnswerMs: 60_000 })
      const sid = (yield* dial("+12025550161")).json.sid as string
      yield* fake.waitFor(() => fake.call(sid)?.status === "ringing" || undefined)
      const canceled = yield* rest("POST", `/Calls/${sid}.json`, { Status: "canceled" })
      assert.strictEqual(canceled.json.status, "canceled")
      yield* fake.awaitCallDone(sid)
      assert.deepStrictEqual(statusCallbacks(ours, sid).map((c) => c.form.get("CallStatus")), [
        "initiated",
        "ringing",
        "canceled"
      ])
    }))

  it.live("TwiML it cannot fetch or parse ends the call with Twilio's error", () =>
    Effect.gen(function*() {
      const { dial, fake } = yield* setup(() => "this is not TwiML")
      const parse = (yield* dial("+12025550102")).json.sid as string
      const unfetchable = (yield* dial("+12025550103", { Url: `${fake.url}/nowhere` })).json.sid as string
      const [a, b] = yield* Effect.all([fake.awaitCallDone(parse), fake.awaitCallDone(unfetchable)])
      assert.strictEqual(a.status, "completed")
      assert.strictEqual(a.errors[0]?.code, 12100)
      assert.strictEqual(b.status, "completed")
      assert.strictEqual(b.errors[0]?.code, 11200)
      assert.isUndefined(a.stream)
    }))
})

describe("TwilioFake inbound", () => {
  it.live("an incoming call posts the number's voice URL (inbound, ringing) and follows the TwiML", () =>
    Effect.gen(function*() {
      const { fake, ours } = yield* setup((form, wsBase) => {
        switch (form.get("From") ?? "") {
          case "+12025550001":
            return "<Response><Reject/></Response>"
          case "+12025550002":
            return `<Response><Reject reason="busy"/></Response>`
          case "+12025550003":
            return "<Response><Say>Goodbye</Say><Hangup/></Response>"
          default:
            return connect(wsBase, "inbound-token", "close")
        }
      })
      const expected = [
        ["+12025550001", "no-answer"],
        ["+12025550002", "busy"],
        ["+12025550003", "completed"],
        ["+12025550004", "completed"]
      ] as const
      for (const [from, status] of expected) {
        const sid = yield* fake.incomingCall({ from, to: ourNumber })
        const call = yield* fake.awaitCallDone(sid).pipe(Effect.timeout(Duration.seconds(10)))
        assert.strictEqual(call.status, status, from)
        assert.strictEqual(call.direction, "inbound")
        const voice = ours.received.find((r) => r.path === "/voice" && r.form.get("CallSid") === sid)
        assert.isTrue(voice?.valid)
        assert.strictEqual(voice?.form.get("Direction"), "inbound")
        assert.strictEqual(voice?.form.get("CallStatus"), "ringing")
        assert.strictEqual(voice?.form.get("To"), ourNumber)
        const callbacks = statusCallbacks(ours, sid)
        assert.deepStrictEqual(callbacks.map((c) => c.form.get("CallStatus")), [status])
        assert.isTrue(callbacks[0]!.valid)
        // The number's console URL, as configured: nothing of ours added to it.
        const posted = fake.webhooks.filter((w) => w.kind === "call-status" && w.sid === sid)
        assert.deepStrictEqual(posted.map((w) => w.url), [`${ours.base}/status`])
        const answered = call.answeredAt === undefined ? 0 : Math.ceil((call.endedAt! - call.answeredAt) / 1000)
        assert.strictEqual(callbacks[0]!.form.get("CallDuration"), String(answered), from)
      }
      assert.deepStrictEqual(fake.calls().map((c) => c.skipped), [[], [], ["Say"], []])
      const [stream] = ours.streams
      assert.isTrue(stream?.valid)
      const start = stream?.messages.find((m) => m.event === "start")?.start as
        | { customParameters: unknown }
        | undefined
      assert.deepStrictEqual(start?.customParameters, { token: "inbound-token", mode: "close" })
    }))

  it.live("messages: sent/delivered callbacks signed; an incoming SMS delivered twice; forgeries refused", () =>
    Effect.gen(function*() {
      const { fake, ours, rest } = yield* setup(() => "<Response/>")
      const sent = yield* rest("POST", "/Messages.json", {
        To: "+12025550101",
        From: ourNumber,
        Body: "Hello",
        StatusCallback: `${ours.base}/sms-status`
      })
      assert.strictEqual(sent.status, 201)
      assert.match(sent.json.sid as string, /^SM[0-9a-f]{32}$/)
      assert.strictEqual(sent.json.status, "queued")
      yield* fake.waitFor(() => fake.messages()[0]?.done || undefined)
      const statuses = ours.received.filter((r) => r.path === "/sms-status")
      assert.deepStrictEqual(statuses.map((s) => s.form.get("MessageStatus")), ["sent", "delivered"])
      for (const status of statuses) {
        assert.isTrue(status.valid)
        assert.strictEqual(status.form.get("MessageSid"), sent.json.sid)
        assert.strictEqual(status.form.get("AccountSid"), fake.accountSid)
        assert.strictEqual(status.form.get("From"), ourNumber)
        assert.strictEqual(status.form.get("To"), "+12025550101")
      }

      const deliveries = yield* fake.incomingSms({ from: "+12025550109", to: ourNumber, body: "STOP", deliveries: 2 })
      assert.deepStrictEqual(deliveries.map((d) => [d.status, d.body]), [[200, "<Response></Response>"], [
        200,
        "<Response></Response>"
      ]])
      const inbound = ours.received.filter((r) => r.path === "/sms")
      assert.strictEqual(inbound.length, 2)
      for (const sms of inbound) {
        assert.isTrue(sms.valid)
        assert.match(sms.form.get("MessageSid") ?? "", /^SM[0-9a-f]{32}$/)
        assert.strictEqual(sms.form.get("MessageSid"), inbound[0]!.form.get("MessageSid"))
        assert.strictEqual(sms.form.get("Body"), "STOP")
        assert.strictEqual(sms.form.get("NumMedia"), "0")
        assert.strictEqual(sms.form.get("AccountSid"), fake.accountSid)
      }

      for (const forgery of ["missing", "wrong-token", "other-url", "tampered", { header: "bm9wZQ==" }] as const) {
        const forged = yield* fake.forgeWebhook({
          url: `${ours.base}/sms`,
          params: { MessageSid: "SM00000000000000000000000000000001", From: "+12025550109", To: ourNumber, Body: "hi" },
          forgery
        })
        assert.strictEqual(forged.status, 403, JSON.stringify(forgery))
      }
      assert.isTrue(ours.received.filter((r) => r.path === "/sms").slice(2).every((r) => !r.valid))
    }))
})
