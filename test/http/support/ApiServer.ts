/**
 * Black-box helpers for the HTTP API tests: the whole app (`HttpApp.layer`) served on a real
 * ephemeral port over a test database, the simulated carrier and recordings in a temporary
 * directory; raw HTTP requests to it; and test data made through the admin API, so every test
 * owns its organizations, keys and numbers and never shares rows with another.
 *
 * Requests go through `node:http` rather than a client library, so a test controls the exact
 * bytes: the path is sent as written (bad percent-encoding included), bodies may be invalid
 * JSON, headers are whatever the test sets.
 *
 * @since 0.1.0
 */
import { assert, describe, layer as layerSuite } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import { AdminToken } from "@voice-agent/http/handlers/Admin"
import * as HttpApp from "@voice-agent/http/HttpApp"
import * as TestServer from "@voice-agent/http/testing/TestServer"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { randomBytes, randomInt } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"

/**
 * The admin token of every test server.
 *
 * @category constructors
 */
export const adminToken = "test-admin-token"

const recordingsDir = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "voice-agent-http-test-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => FileRecordingStore.layer(dir)))
)

/**
 * The app on an ephemeral port, plus the storage ports and the RecordingStore for tests that
 * insert conversations and write recordings directly. No dialer runs: a contact's dialing
 * state changes only when a test writes it. `routes`: more routes beside the API's (the
 * daemon's raw ones), their requirements left to the caller.
 *
 * @category layers
 */
export const layerWith = <E, R>(database: TestDatabase.Backend["layer"], routes: Layer.Layer<never, E, R>) =>
  HttpRouter.serve(Layer.mergeAll(HttpApp.layer, routes), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(TestServer.layer),
    Layer.provideMerge(Layer.mergeAll(
      AdminToken.layer(Option.some(Redacted.make(adminToken))),
      SimCarrier.layer,
      recordingsDir
    )),
    Layer.provideMerge(SqlStorage.layer.pipe(Layer.provideMerge(database)))
  )

/**
 * The app alone (see {@link layerWith}).
 *
 * @category layers
 */
export const layer = (database: TestDatabase.Backend["layer"]) => layerWith(database, Layer.empty)

/**
 * What a test body can use: the server's HttpServer (for requests), the storage ports, the
 * RecordingStore and the SQL client.
 *
 * @category models
 */
export type Services = Layer.Success<ReturnType<typeof layer>>

/**
 * Registers the same suite once per backend (PGlite, PostgreSQL), each with one server for
 * the whole file; a backend that cannot run here is skipped with its reason printed.
 *
 * @category constructors
 */
export const eachBackend = async (
  name: string,
  suite: (it: Vitest.MethodsNonLive<Services>, backend: TestDatabase.Backend["name"]) => void
): Promise<void> => {
  for (const backend of await TestDatabase.backends()) {
    describe.skipIf(backend.skip !== undefined)(`${name} on ${backend.name}`, () => {
      // A real clock (no TestClock): the server stamps uploads and messages with the time.
      layerSuite(layer(backend.layer), { timeout: "120 seconds", excludeTestServices: true })((it) =>
        suite(it, backend.name)
      )
    })
  }
}

/**
 * An answer: status, lower-case headers, the raw bytes, the text, and the parsed JSON body
 * (`undefined` when the body is empty or not JSON).
 *
 * @category models
 */
export interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly bytes: Buffer
  readonly text: string
  // Parsed JSON, read field by field in the assertions.
  readonly body: any
}

/**
 * @category models
 */
export interface RequestOptions {
  /** Bearer token; `null` sends no Authorization header. */
  readonly token?: string | null
  /** A value sent as JSON. */
  readonly json?: unknown
  /** A raw body, sent as is (with `content-type: application/json` unless headers say otherwise). */
  readonly body?: string | Buffer
  readonly headers?: Readonly<Record<string, string>>
}

// The server listens on every interface ([::]); requests go to the IPv4 loopback.
const baseUrl = HttpServer.addressFormattedWith((url) => Effect.succeed(new URL(url)))

/**
 * One HTTP request to the test server. `path` goes on the wire exactly as written.
 *
 * @category constructors
 */
export const request = (
  method: string,
  path: string,
  options: RequestOptions = {}
): Effect.Effect<Reply, never, HttpServer.HttpServer> =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.callback<Reply>((resume) => {
      const headers: Record<string, string> = {}
      if (options.token != null) headers["authorization"] = `Bearer ${options.token}`
      let payload: Buffer | undefined
      if (options.json !== undefined) payload = Buffer.from(JSON.stringify(options.json))
      else if (options.body !== undefined) payload = Buffer.from(options.body)
      if (payload !== undefined) {
        headers["content-type"] = "application/json"
        headers["content-length"] = String(payload.length)
      }
      Object.assign(headers, options.headers)
      const req = http.request({ host: "127.0.0.1", port: base.port, method, path, headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          const bytes = Buffer.concat(chunks)
          const text = bytes.toString("utf8")
          let body: unknown = undefined
          if ((res.headers["content-type"] ?? "").includes("json") && text !== "") {
            try {
              body = JSON.parse(text)
            } catch {
              body = undefined
            }
          }
          resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, bytes, text, body }))
        })
        res.on("error", (error) => resume(Effect.die(error)))
      })
      req.on("error", (error) => resume(Effect.die(error)))
      req.end(payload)
    }))

/**
 * A request with an organization's API key.
 *
 * @category constructors
 */
export const api = (
  token: string | null,
  method: string,
  path: string,
  options: Omit<RequestOptions, "token"> = {}
) => request(method, path, { ...options, token })

/**
 * A request with the admin token that must succeed with `status`.
 *
 * @category constructors
 */
export const admin = (method: string, path: string, json?: unknown, status?: number) =>
  Effect.flatMap(
    request(method, path, { token: adminToken, json }),
    (reply) =>
      status === undefined || reply.status === status
        ? Effect.succeed(reply)
        : Effect.die(new Error(`admin ${method} ${path}: expected ${status}, got ${reply.status} ${reply.text}`))
  )

// US area codes only (no Canadian or Caribbean ones): delete-by-number requires a US number.
const usAreaCodes = [201, 202, 203, 205, 206, 207, 208, 209, 210, 212, 213, 214, 215, 216, 217, 218, 219, 224, 225, 228]

/**
 * A random, valid US number (exchange 600..999, so never in the simulated carrier's 555-01XX
 * outcome range: these numbers answer and accept SMS).
 *
 * @category constructors
 */
export const randomNumber = (): string =>
  `+1${usAreaCodes[randomInt(0, usAreaCodes.length)]}${randomInt(600, 1000)}${randomInt(1000, 10_000)}`

/**
 * `count` random numbers, no two alike: independent draws from the 72 million above collide in
 * about one run in a few hundred once a test takes hundreds, and an upload rejects a repeat.
 *
 * @category constructors
 */
export const distinctNumbers = (count: number): Array<string> => {
  const numbers = new Set<string>()
  while (numbers.size < count) numbers.add(randomNumber())
  return [...numbers]
}

/**
 * A simulated-carrier number (555-0170..0179) that refuses SMS.
 *
 * @category constructors
 */
export const refusingNumber = (): string => `+1${randomInt(201, 990)}555017${randomInt(0, 10)}`

/**
 * A fresh unique name.
 *
 * @category constructors
 */
export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(5).toString("hex")}`

/**
 * A test organization: its id, an API key, and one SMS-enabled number it owns.
 *
 * @category models
 */
export interface TestOrganization {
  readonly id: string
  readonly key: string
  readonly number: string
}

/**
 * Creates an organization (settings as the admin API takes them), a key and a number.
 *
 * @category constructors
 */
export const organization = (settings: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const org = yield* admin("POST", "/admin/v1/organizations", { name: uniqueName("org"), ...settings }, 201)
    const id: string = org.body.id
    const key: string = (yield* admin("POST", `/admin/v1/organizations/${id}/api-keys`, undefined, 201)).body.api_key
    const number = yield* addNumber(id)
    return { id, key, number } satisfies TestOrganization
  })

/**
 * Gives the organization another number.
 *
 * @category constructors
 */
export const addNumber = (organizationId: string, options: { readonly sms_enabled?: boolean } = {}) =>
  Effect.gen(function*() {
    const number = randomNumber()
    yield* admin("POST", `/admin/v1/organizations/${organizationId}/phone-numbers`, {
      phone_number: number,
      ...options
    }, 201)
    return number
  })

/**
 * Changes organization flags through the admin API.
 *
 * @category constructors
 */
export const updateOrganization = (organizationId: string, settings: Record<string, unknown>) =>
  admin("PATCH", `/admin/v1/organizations/${organizationId}`, settings, 200)

/**
 * Adds numbers to the organization's Do-Not-Call list.
 *
 * @category constructors
 */
export const addDnc = (organizationId: string, numbers: ReadonlyArray<string>) =>
  admin("POST", `/admin/v1/organizations/${organizationId}/dnc`, { phone_numbers: numbers }, 200)

/**
 * Delivers an inbound SMS as the carrier would.
 *
 * @category constructors
 */
export const inboundMessage = (
  organizationId: string,
  message: {
    readonly from_number: string
    readonly to_number: string
    readonly content: string
    readonly received_at?: string
  }
) =>
  admin("POST", `/admin/v1/organizations/${organizationId}/inbound-messages`, message, 201).pipe(
    Effect.map((reply) => reply.body)
  )

/**
 * A valid create-campaign body from the organization's number; `overrides` replace fields
 * (an `undefined` value removes the field).
 *
 * @category constructors
 */
export const campaignBody = (org: TestOrganization, overrides: Record<string, unknown> = {}) => {
  const body: Record<string, unknown> = {
    name: uniqueName("campaign"),
    origin_phone_numbers: [org.number],
    start_date: "2026-01-01",
    calling_windows: [{ day: "monday", start_time: "09:00", end_time: "17:00" }],
    ...overrides
  }
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key]
  return body
}

/**
 * Creates a campaign through the API; answers the Campaign resource.
 *
 * @category constructors
 */
export const campaign = (org: TestOrganization, overrides: Record<string, unknown> = {}) =>
  Effect.flatMap(
    api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org, overrides) }),
    (reply) =>
      reply.status === 201
        ? Effect.succeed(reply.body)
        : Effect.die(new Error(`create campaign: ${reply.status} ${reply.text}`))
  )

/**
 * Uploads contacts (terms accepted); must answer 200. Answers the number created.
 *
 * @category constructors
 */
export const upload = (
  org: TestOrganization,
  campaignCode: string,
  contacts: ReadonlyArray<Record<string, unknown>>,
  query = ""
) =>
  Effect.flatMap(
    api(org.key, "POST", `/v2/campaigns/${campaignCode}/contacts?accepted_terms_of_service=true${query}`, {
      json: { contacts }
    }),
    (reply) =>
      reply.status === 200
        ? Effect.succeed(reply.body.created as number)
        : Effect.die(new Error(`upload: ${reply.status} ${reply.text}`))
  )

/**
 * Every contact of a listing, following `next_cursor` to the end (`query` without `after`).
 *
 * @category constructors
 */
export const listAllContacts = (org: TestOrganization, query: string) =>
  Effect.gen(function*() {
    const all: Array<any> = []
    let after: string | null = null
    for (let page = 0; page < 1000; page++) {
      const url: string = `/v2/contacts?${query}${after === null ? "" : `&after=${encodeURIComponent(after)}`}`
      const reply = yield* api(org.key, "GET", url)
      if (reply.status !== 200) return yield* Effect.die(new Error(`list contacts: ${reply.status} ${reply.text}`))
      all.push(...reply.body.contacts)
      if (!reply.body.has_more) return all
      after = reply.body.next_cursor
    }
    return yield* Effect.die(new Error("list contacts: too many pages"))
  })

/**
 * Query-string encoding of a value (`+` becomes `%2B`).
 *
 * @category constructors
 */
export const q = (value: string): string => encodeURIComponent(value)

/**
 * The sorted keys of an object, for exact key-set assertions.
 *
 * @category constructors
 */
export const keysOf = (value: object): Array<string> => Object.keys(value).sort()

/**
 * The fields of every documented resource, sorted.
 *
 * @category constructors
 */
export const Fields = {
  campaign: [
    "calling_windows",
    "campaign_code",
    "created_datetime",
    "description",
    "enabled",
    "end_date",
    "id",
    "max_attempts",
    "max_concurrency",
    "name",
    "origin_phone_numbers",
    "retry_delay_s",
    "start_date",
    "timezone"
  ],
  contact: ["data", "id", "phone_number", "status"],
  conversation: [
    "call_id",
    "campaign_id",
    "direction",
    "duration_sec",
    "from_number",
    "id",
    "termination_reason",
    "to_number",
    "ts"
  ],
  transcriptTurn: ["offset_ms", "speaker", "text"],
  inboundMessage: ["content", "direction", "from_number", "id", "modality", "received_at", "to_number"],
  contactList: ["contacts", "has_more", "next_cursor"],
  conversationList: ["conversations", "has_more", "next_cursor"],
  messageList: ["has_more", "messages"]
} as const

/**
 * Whether a string is an ISO 8601 instant as the API writes them (UTC, milliseconds).
 *
 * @category constructors
 */
export const isIsoInstant = (value: unknown): boolean =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
  !Number.isNaN(Date.parse(value))

/**
 * Asserts an error answer `status` with exactly `{"detail": "<non-empty sentence>"}`.
 *
 * @category constructors
 */
export const assertDetail = (reply: Reply, status: number, message?: string): void => {
  assert.strictEqual(reply.status, status, `${message ?? ""} expected ${status}, got ${reply.status} ${reply.text}`)
  assert.deepStrictEqual(reply.body === undefined ? reply.text : keysOf(reply.body), ["detail"], message)
  assert.isString(reply.body.detail, message)
  assert.isNotEmpty(reply.body.detail, message)
}

/**
 * Asserts FastAPI's 422 `{"detail": [{loc, msg, type}, ...]}` with an item at each `loc`.
 *
 * @category constructors
 */
export const assertValidation = (
  reply: Reply,
  ...locs: ReadonlyArray<ReadonlyArray<string | number>>
): void => {
  assert.strictEqual(reply.status, 422, `expected 422, got ${reply.status} ${reply.text}`)
  assert.deepStrictEqual(keysOf(reply.body), ["detail"])
  assert.isArray(reply.body.detail)
  assert.isNotEmpty(reply.body.detail)
  for (const item of reply.body.detail) {
    assert.deepStrictEqual(keysOf(item), ["loc", "msg", "type"], reply.text)
    assert.isArray(item.loc)
    for (const part of item.loc) assert.include(["string", "number"], typeof part)
    assert.isString(item.msg)
    assert.isString(item.type)
  }
  for (const loc of locs) {
    assert.isTrue(
      reply.body.detail.some((item: any) => JSON.stringify(item.loc) === JSON.stringify(loc)),
      `no validation error at ${JSON.stringify(loc)}: ${reply.text}`
    )
  }
}
