/**
 * Hostile requests to every Twilio webhook (`/carrier/twilio/{voice,status,sms,sms-status}`;
 * issue 12, "Bad input"), on both storage backends. See ./README.md for the long run.
 *
 * The routes are the daemon's own (carrier-twilio/TwilioRoutes, as daemon/src/TwilioWebhooks.ts mounts them) with the API's error bodies,
 * the engine's InboundCalls and the simulated carrier behind them, served in process so that
 * every table can be compared before and after each request. Most requests are correctly
 * signed (the signature is computed over whatever the fuzzer sends, as Twilio would), so they
 * reach the decoders and the handlers: parameters missing, repeated, empty, of the wrong kind,
 * with NUL and unpaired surrogates, very long; `call_id` of a live call, an ended one, none or
 * garbage; broken percent-encoding; JSON or binary bodies; wrong content types; bodies over
 * the 64 KiB limit, with and without a length. The others are signed wrongly or not at all.
 *
 * Every answer must come, be below 500, and an error must be `{"detail": "<sentence>"}`; a
 * refused request (4xx) changes no table. A request without a valid signature is 403 (unless
 * too large: 413); one with a valid signature is never 403.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import * as TwilioSignature from "@voice-agent/carrier-twilio/TwilioSignature"
import * as TwilioWebhookCodec from "@voice-agent/carrier-twilio/TwilioWebhooks"
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { MessageRepository } from "@voice-agent/core/ports/MessageRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import * as EngineInbound from "@voice-agent/engine/InboundCalls"
import * as ErrorBodies from "@voice-agent/http/handlers/ErrorBodies"
import * as NodeServer from "@voice-agent/http/NodeServer"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Deferred, Effect, Layer, Redacted, References } from "effect"
import type { Context } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as fc from "fast-check"
import { randomBytes } from "node:crypto"
import { MediaEndpoint } from "voice-agent/Inbound"
import * as TwilioWebhooks from "voice-agent/TwilioWebhooks"
import * as Fuzz from "./support/Fuzz.ts"

const publicUrl = "https://voice.example.com"
const authToken = "0123456789abcdef0123456789abcdef"
const accountSid = "AC0123456789abcdef0123456789abcdef"
const ours = "+12025550100"

const server = (database: TestDatabase.Backend["layer"]) =>
  HttpRouter.serve(
    Layer.merge(TwilioWebhooks.routes({ authToken: Redacted.make(authToken), publicUrl }), ErrorBodies.layer),
    { disableLogger: true, disableListenLog: true }
  ).pipe(
    Layer.provideMerge(NodeHttpServer.layer(NodeServer.createServer, { port: 0, host: "127.0.0.1" })),
    // Calls accepted here are never streamed: their followers must not end them during the run.
    Layer.provideMerge(EngineInbound.layer({
      ...EngineInbound.defaults(Effect.succeed("wss://voice.example.com/carrier/twilio/media")),
      ringTimeoutMs: 3_600_000,
      sweepEveryMs: 3_600_000
    })),
    Layer.provideMerge(Layer.effect(
      MediaEndpoint,
      Effect.tap(
        Deferred.make<string>(),
        (url) => Deferred.succeed(url, "wss://voice.example.com/carrier/twilio/media")
      )
    )),
    Layer.provideMerge(SimCarrier.layer),
    Layer.provideMerge(SqlStorage.layer.pipe(Layer.provideMerge(database))),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
  )

type Services = Layer.Success<ReturnType<typeof server>>

// ------------------------------------------------------------------------------- requests

const routes = {
  voice: "/carrier/twilio/voice",
  status: "/carrier/twilio/status",
  sms: "/carrier/twilio/sms",
  "sms-status": "/carrier/twilio/sms-status"
} as const

type Route = keyof typeof routes

interface Known {
  readonly openCall: string
  readonly endedCall: string
  readonly sentMessage: string
}

const rfc2822 = fc.constantFrom(
  "Sun, 25 Mar 2018 09:53:19 +0000",
  "25 Mar 2018 09:53 GMT",
  "Mon, 31 Feb 2026 25:61:61 +9999",
  "yesterday",
  ""
)

/** The parameters a route reads: values Twilio would send, and hostile ones. */
const fields = (
  route: Route,
  known: Known
): Record<string, { readonly plausible: fc.Arbitrary<string>; readonly hostile: fc.Arbitrary<string> }> => {
  const field = (plausible: fc.Arbitrary<string>, hostile: fc.Arbitrary<string> = Fuzz.nastyString) => ({
    plausible,
    hostile
  })
  const number = field(fc.constantFrom(ours, ours, "+13035550111", "+442071838750", "client:alice", "sip:a@b.c"))
  const sid = (prefix: string, existing: ReadonlyArray<string> = []) =>
    field(
      fc.oneof(fc.stringMatching(new RegExp(`^${prefix}[0-9a-f]{32}$`)), fc.constantFrom(`${prefix}1`, ...existing)),
      fc.oneof(Fuzz.nastyString, fc.constantFrom(`${prefix}\u0000`, `${prefix}${"0".repeat(5000)}`))
    )
  const oneOf = (values: ReadonlyArray<string>) => field(fc.constantFrom(...values))
  const callStatus = oneOf(TwilioWebhookCodec.CallStatus.literals)
  const common = { AccountSid: oneOf([accountSid]), From: number, To: number }
  switch (route) {
    case "voice":
      return {
        ...common,
        CallSid: sid("CA"),
        CallStatus: callStatus,
        Direction: oneOf(["inbound", "outbound-api", "outbound-dial"]),
        AnsweredBy: oneOf(["human", "machine_start", "machine_end_beep", "fax", "unknown"]),
        CallerName: field(fc.string({ maxLength: 30 }))
      }
    case "status":
      return {
        ...common,
        CallSid: sid("CA"),
        CallStatus: callStatus,
        Timestamp: field(rfc2822),
        SequenceNumber: oneOf(["0", "1", "-1", "99999999999999999999"]),
        CallDuration: oneOf(["0", "12", "-5", "1e9"])
      }
    case "sms":
      return {
        ...common,
        MessageSid: sid("SM"),
        Body: field(
          fc.string({ maxLength: 200 }),
          fc.oneof(Fuzz.nastyString, fc.integer({ min: 1_000, max: 70_000 }).map((n) => "b".repeat(n)))
        ),
        NumMedia: oneOf(["0", "1", "x"])
      }
    case "sms-status":
      return {
        ...common,
        MessageSid: sid("SM", [known.sentMessage]),
        MessageStatus: oneOf([...TwilioWebhookCodec.messageStatuses, "made-up"]),
        ErrorCode: oneOf(["30003", "", "x"])
      }
  }
}

/**
 * Form parameters: all of the route's as Twilio sends them, all with some hostile, or some of
 * them; plus repeats and strangers.
 */
const params = (route: Route, known: Known): fc.Arbitrary<ReadonlyArray<readonly [string, string]>> => {
  const all = fields(route, known)
  const names = Object.keys(all)
  const values = (chosen: ReadonlyArray<string>, hostile: number) =>
    fc.tuple(...chosen.map((name) =>
      fc.oneof(
        { arbitrary: all[name]!.plausible, weight: 10 - hostile },
        { arbitrary: all[name]!.hostile, weight: hostile }
      ).map((value) => [name, value] as const)
    ))
  return fc.tuple(
    fc.oneof(
      { arbitrary: values(names, 0), weight: 4 },
      { arbitrary: values(names, 2), weight: 3 },
      { arbitrary: fc.subarray(names).chain((chosen) => values(chosen, 3)), weight: 2 }
    ),
    fc.oneof(
      { arbitrary: fc.constant([] as Array<readonly [string, string]>), weight: 3 },
      {
        arbitrary: fc.array(
          fc.constantFrom(...names).chain((name) => all[name]!.plausible.map((value) => [name, value] as const)),
          { minLength: 1, maxLength: 2 }
        ),
        weight: 1
      }
    ),
    fc.oneof(
      { arbitrary: fc.constant([] as Array<readonly [string, string]>), weight: 3 },
      { arbitrary: fc.array(fc.tuple(Fuzz.nastyString, Fuzz.nastyString), { minLength: 1, maxLength: 2 }), weight: 1 }
    )
  ).map(([main, repeats, strangers]) => [...main, ...repeats, ...strangers])
}

/** The form body as text: proper encoding, or with a broken spot. */
const formBody = (entries: ReadonlyArray<readonly [string, string]>): fc.Arbitrary<string> => {
  const proper = new URLSearchParams(entries.map(([k, v]): [string, string] => [k, v])).toString()
  return fc.oneof(
    { arbitrary: fc.constant(proper), weight: 6 },
    {
      arbitrary: fc.tuple(fc.nat(), fc.constantFrom("%ZZ", "%E0%A4", "%", "%C0%AF", "&&", "=", "?", ";", "%00", "+"))
        .map(([at, junk]) => {
          const i = proper.length === 0 ? 0 : at % proper.length
          return `${proper.slice(0, i)}${junk}${proper.slice(i)}`
        }),
      weight: 2
    },
    { arbitrary: fc.constant(JSON.stringify(Object.fromEntries(entries))), weight: 1 },
    { arbitrary: fc.constant(""), weight: 1 }
  )
}

/** The query of the route: `call_id` where the route reads it, as real ids, garbage or not at all. */
const query = (route: Route, known: Known): fc.Arbitrary<string> => {
  const callId = fc.oneof(
    { arbitrary: fc.constantFrom(known.openCall, known.endedCall, "CAffffffffffffffffffffffff"), weight: 3 },
    { arbitrary: Fuzz.encodedComponent(Fuzz.nastyString), weight: 2 },
    { arbitrary: fc.constant("%00"), weight: 1 },
    { arbitrary: fc.constantFrom("%ZZ", "%E0%A4%A", "%C0%80", "x".repeat(5000)), weight: 1 }
  )
  const main = route === "voice" || route === "status"
    ? fc.oneof(
      { arbitrary: callId.map((id) => [`call_id=${id}`]), weight: 3 },
      { arbitrary: fc.tuple(callId, callId).map(([a, b]) => [`call_id=${a}`, `call_id=${b}`]), weight: 1 },
      { arbitrary: fc.constant([] as Array<string>), weight: route === "voice" ? 3 : 1 }
    )
    : fc.constant([] as Array<string>)
  return fc.tuple(
    main,
    fc.array(
      fc.tuple(Fuzz.encodedComponent(Fuzz.nastyString), Fuzz.encodedComponent(Fuzz.nastyString)).map(([k, v]) =>
        `${k}=${v}`
      ),
      { maxLength: 2 }
    )
  ).map(([a, b]) => [...a, ...b].length === 0 ? "" : `?${[...a, ...b].join("&")}`)
}

interface Case {
  readonly route: Route
  readonly request: Fuzz.RawRequest
  readonly signature: "valid" | "wrong" | "missing" | "other-url"
  readonly size: number
}

const cases = (known: Known): fc.Arbitrary<Case> =>
  fc.constantFrom(...(Object.keys(routes) as Array<Route>)).chain((route) =>
    fc.tuple(
      params(route, known).chain((entries) =>
        fc.oneof(
          { arbitrary: formBody(entries).map((text) => Buffer.from(text, "utf8")), weight: 12 },
          { arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
          {
            arbitrary: fc.integer({ min: TwilioWebhooks.maxBodyBytes - 10, max: TwilioWebhooks.maxBodyBytes * 3 }).map((
              n
            ) => Buffer.from(`Body=${"b".repeat(n)}`)),
            weight: 1
          }
        )
      ),
      query(route, known),
      fc.oneof(
        { arbitrary: fc.constant("valid" as const), weight: 8 },
        { arbitrary: fc.constantFrom("wrong" as const, "missing" as const, "other-url" as const), weight: 2 }
      ),
      fc.oneof(
        { arbitrary: fc.constant<string | undefined>("application/x-www-form-urlencoded"), weight: 6 },
        {
          arbitrary: fc.constantFrom<string | undefined>(
            undefined,
            "application/json",
            "text/plain",
            "multipart/form-data; boundary=x",
            "application/x-www-form-urlencoded; charset=latin1"
          ),
          weight: 1
        }
      ),
      fc.option(fc.integer({ min: 1, max: 8192 }), { freq: 6 }),
      fc.oneof({ arbitrary: fc.constant("POST"), weight: 12 }, {
        arbitrary: fc.constantFrom("GET", "PUT", "DELETE"),
        weight: 1
      })
    ).map(([body, q, signature, contentType, chunked, method]) => {
      const target = `${routes[route]}${q}`
      const parsed = TwilioWebhookCodec.parseForm(body.toString("utf8"))
      const token = Redacted.make(signature === "wrong" ? `${authToken}x` : authToken)
      const url = signature === "other-url" ? `${publicUrl}/carrier/twilio/other${q}` : `${publicUrl}${target}`
      const headers: Array<readonly [string, string]> = []
      if (signature !== "missing") headers.push(["X-Twilio-Signature", TwilioSignature.sign(token, url, parsed)])
      if (contentType !== undefined) headers.push(["Content-Type", contentType])
      return {
        route,
        signature,
        size: body.length,
        request: { method, target, headers, body, chunked: chunked ?? undefined }
      }
    })
  )

// ------------------------------------------------------------------------------- the tests

/** An organization owning `ours`, a live outbound call, an ended one, and a sent message. */
const seed = Effect.gen(function*() {
  const organization = yield* (yield* OrganizationRepository).create({
    name: "webhook-fuzz",
    outboundDialingEnabled: true,
    smsRegistered: true,
    billingIssue: false,
    maxConcurrency: 5
  })
  if (!isE164(ours)) return yield* Effect.die(new Error(`${ours} is not E.164`))
  yield* (yield* PhoneNumberRepository).add(organization.id, { phoneNumber: ours, smsEnabled: true }).pipe(Effect.orDie)
  const conversations = yield* ConversationRepository
  const call = (ended: boolean) =>
    Effect.map(
      conversations.insert({
        callId: `CA${randomBytes(12).toString("hex")}`,
        organizationId: organization.id,
        campaignId: null,
        contactId: null,
        direction: "outbound",
        fromNumber: ours,
        toNumber: "+13035550111",
        startedAt: new Date(),
        answeredAt: ended ? new Date() : null,
        endedAt: ended ? new Date() : null,
        durationSec: ended ? 0 : null,
        terminationReason: ended ? "user-hangup" : null
      }),
      (record) => record.callId
    )
  const sentMessage = `SM${randomBytes(16).toString("hex")}`
  yield* (yield* MessageRepository).insert({
    organizationId: organization.id,
    direction: "outbound",
    modality: "sms",
    fromNumber: ours,
    toNumber: "+13035550111",
    content: "hello",
    receivedAt: new Date(),
    status: "queued"
  }, sentMessage)
  return { openCall: yield* call(false), endedCall: yield* call(true), sentMessage } satisfies Known
})

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`fuzz: Twilio webhooks on ${backend.name}`, () => {
    layer(server(backend.layer), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect(
        "answer below 500 with {detail}, verify signatures first, and write nothing when refused",
        () =>
          Effect.gen(function*() {
            const known = yield* seed
            const address = (yield* HttpServer.HttpServer).address
            const port = "port" in address ? address.port : 0
            const context: Context.Context<Services> = yield* Effect.context<Services>()
            const run = <A>(effect: Effect.Effect<A, never, Services>) => Effect.runPromiseWith(context)(effect)
            let before = yield* Fuzz.snapshot
            const seen = new Map<string, number>()
            yield* Fuzz.check(backend.name === "pglite" ? 120 : 80, cases(known), async (fuzzCase) => {
              const { request } = fuzzCase
              const label = `${fuzzCase.route} (${fuzzCase.signature})\n${Fuzz.describeRequest(request)}`
              const reply = await run(Fuzz.send(port, request))
              assert.strictEqual(reply._tag, "Reply", `no answer (${reply._tag} after ${reply.ms} ms): ${label}`)
              if (reply._tag !== "Reply") return
              seen.set(`${reply.status}`, (seen.get(`${reply.status}`) ?? 0) + 1)
              assert.isBelow(reply.status, 500, `5xx: ${label}\n=> ${reply.status} ${reply.text.slice(0, 500)}`)
              const after = await run(Fuzz.snapshot)
              if (reply.status >= 400) {
                Fuzz.assertErrorShape(reply, label)
                assert.deepStrictEqual(
                  Fuzz.changedTables(before, after),
                  [],
                  `refused (${reply.status}) yet written: ${label}\n=> ${reply.text.slice(0, 300)}`
                )
              }
              before = after
              const tooLarge = fuzzCase.size > TwilioWebhooks.maxBodyBytes
              // Refused by Node's HTTP parser (a raw byte it does not allow): the routes never saw it.
              if (request.method === "POST" && !tooLarge && !Fuzz.isParserAnswer(reply)) {
                if (fuzzCase.signature === "valid") {
                  assert.notStrictEqual(reply.status, 403, `a valid signature refused: ${label}`)
                } else {
                  assert.strictEqual(reply.status, 403, `an invalid signature (${fuzzCase.signature}) let in: ${label}`)
                }
              }
              if (request.method === "POST" && tooLarge) assert.strictEqual(reply.status, 413, label)
            })
            yield* Effect.logInfo(`webhook statuses on ${backend.name}: ${JSON.stringify(Object.fromEntries(seen))}`)
          }),
        { timeout: Fuzz.long ? 3_600_000 : 120_000 }
      )
    })
  })
}
