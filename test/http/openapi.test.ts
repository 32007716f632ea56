/**
 * The machine-readable description: `GET /openapi.json` is OpenAPI 3.1 with the package's
 * version, every documented path and method, bearer security (the scheme's registered name,
 * `bearer`), FastAPI's 422 HTTPValidationError and the ErrorResponse body, the admin API under
 * its own tag (and absent when the admin API is off), the deprecated v1 paths marked deprecated;
 * `/docs` is an HTML page whose "Test Request" uses the bearer scheme; `GET /` leads there. The
 * document lints clean (no error, no warning) with Redocly's recommended rules, as a user running
 * `redocly lint` on it would see. Served by the real app on both backends (the document does not
 * depend on storage, the server does).
 */
import { assert, describe, layer } from "@effect/vitest"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { call, serve } from "@voice-agent/http/testing/TestApp"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Option } from "effect"
import { HttpClient } from "effect/http"
import * as fs from "node:fs"
import { api, eachBackend } from "./support/ApiServer.ts"

const packageVersion: string = JSON.parse(
  fs.readFileSync(new URL("../../packages/http/package.json", import.meta.url), "utf8")
).version

/** The OpenAPI document a `/docs` page embeds (Scalar's `content`). */
const embeddedDocument = (html: string): any => {
  const call = html.slice(html.lastIndexOf("createApiReference("))
  const content = /content:\s*(\{.*\})\s*\}\)\s*<\/script>/s.exec(call)?.[1]
  assert(content !== undefined, "no document in /docs")
  return JSON.parse(content)
}

/** The component schemas reachable from the document's paths, through `$ref`s. */
const referencedSchemas = (spec: any): Set<string> => {
  const seen = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== "object") return
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
        const name = value.slice("#/components/schemas/".length)
        if (!seen.has(name)) {
          seen.add(name)
          visit(spec.components.schemas[name])
        }
      } else visit(value)
    }
  }
  visit(spec.paths)
  return seen
}

/**
 * Every documented operation: the API reference's endpoints, the deprecated v1 paths (docs/DECISIONS.md), the admin API (docs/ADMIN.md),
 * our extensions (docs/DECISIONS.md).
 */
const documented = {
  public: [
    ["post", "/v1/send-sms"],
    ["get", "/v1/messages"],
    ["get", "/v1/phone-numbers"],
    ["post", "/v2/campaigns"],
    ["get", "/v2/campaigns"],
    ["get", "/v2/campaigns/{campaign_code}"],
    ["patch", "/v2/campaigns/{campaign_code}"],
    ["delete", "/v2/campaigns/{campaign_code}"],
    ["get", "/v2/campaigns/{campaign_code}/status"],
    ["get", "/v2/campaigns/{campaign_code}/has-callable-contacts"],
    ["post", "/v2/campaigns/{campaign_code}/contacts"],
    ["get", "/v2/contacts"],
    ["delete", "/v2/campaigns/{campaign_code}/contacts"],
    ["delete", "/v2/campaigns/{campaign_code}/contacts/{contact_id}"],
    ["get", "/v2/campaigns/{campaign_code}/contacts/{contact_id}/eligibility"],
    ["get", "/v1/conversations"],
    ["get", "/v1/conversations/{call_id}"],
    ["get", "/v1/conversations/{call_id}/transcript"],
    ["get", "/v1/conversations/{call_id}/recording"],
    ["get", "/v1/conversations/{call_id}/channels/{channel_name}/recording"],
    ["post", "/v2/agents"],
    ["get", "/v2/agents"],
    ["get", "/v2/agents/{agent_id}"],
    ["patch", "/v2/agents/{agent_id}"],
    ["delete", "/v2/agents/{agent_id}"],
    ["get", "/v2/campaigns/{campaign_code}/agent"],
    ["put", "/v2/campaigns/{campaign_code}/agent"],
    ["get", "/v2/phone-numbers/{phone_number}/agent"],
    ["put", "/v2/phone-numbers/{phone_number}/agent"],
    ["get", "/v1/conversations/{call_id}/fields"],
    // Turn latency (docs/HTTP_API.md).
    ["get", "/v1/conversations/{call_id}/latency"],
    ["get", "/v2/campaigns/{campaign_code}/latency"],
    // Live listen, completed (docs/LISTEN.md).
    ["post", "/v1/conversations/{call_id}/listen-tickets"],
    // The reference SDK's HTTP calls (docs/SDK_HTTP.md).
    ["post", "/v2/create-outbound"],
    ["post", "/v1/llm/generate"]
  ],
  // The reference SDK's housekeeping calls, which it sends without a key.
  unauthenticated: [
    ["get", "/v1/check-sdk-deprecation"],
    ["post", "/v1/check-sdk-deprecation"],
    ["post", "/v1/upload-telemetry"]
  ],
  deprecated: [
    ["get", "/v1/campaigns"],
    ["get", "/v1/campaigns/{campaign_id}"],
    ["patch", "/v1/campaigns/{campaign_id}"],
    ["delete", "/v1/campaigns/{campaign_id}"],
    ["get", "/v1/campaigns/{campaign_id}/status"],
    ["get", "/v1/campaigns/{campaign_id}/has-callable-contacts"],
    ["post", "/v1/campaigns/{campaign_id}/contacts"],
    ["get", "/v1/contacts"]
  ],
  admin: [
    ["post", "/admin/v1/organizations"],
    // The lists the web console's admin pages read.
    ["get", "/admin/v1/organizations"],
    ["get", "/admin/v1/organizations/{org_id}"],
    ["get", "/admin/v1/organizations/{org_id}/api-keys"],
    ["get", "/admin/v1/organizations/{org_id}/phone-numbers"],
    ["get", "/admin/v1/organizations/{org_id}/dnc"],
    ["patch", "/admin/v1/organizations/{org_id}"],
    ["post", "/admin/v1/organizations/{org_id}/api-keys"],
    ["delete", "/admin/v1/organizations/{org_id}/api-keys/{key_id}"],
    ["post", "/admin/v1/organizations/{org_id}/phone-numbers"],
    ["post", "/admin/v1/organizations/{org_id}/dnc"],
    ["delete", "/admin/v1/organizations/{org_id}/dnc"],
    ["post", "/admin/v1/organizations/{org_id}/inbound-messages"],
    ["post", "/admin/v1/organizations/{org_id}/inbound-calls"],
    ["post", "/admin/v1/organizations/{org_id}/webhooks"],
    ["get", "/admin/v1/organizations/{org_id}/webhooks"],
    ["delete", "/admin/v1/organizations/{org_id}/webhooks/{webhook_id}"],
    ["get", "/admin/v1/organizations/{org_id}/webhooks/{webhook_id}/deliveries"],
    ["get", "/admin/v1/webhook-deliveries"]
  ]
} as const

/** Statuses the API reference's Errors table names per operation (each must be documented). */
const documentedErrors: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
  ["post", "/v1/send-sms", ["201", "400", "401", "403", "422", "500"]],
  ["get", "/v1/messages", ["200", "400", "401", "404"]],
  ["post", "/v2/campaigns", ["201", "400", "401", "403", "409", "422"]],
  ["get", "/v2/campaigns", ["200", "401", "403"]],
  ["get", "/v2/campaigns/{campaign_code}", ["200", "401", "403", "404"]],
  ["delete", "/v2/campaigns/{campaign_code}", ["200", "401", "403", "404"]],
  ["get", "/v2/campaigns/{campaign_code}/status", ["200", "401", "403", "404"]],
  ["get", "/v2/campaigns/{campaign_code}/has-callable-contacts", ["200", "401", "403", "404"]],
  ["patch", "/v2/campaigns/{campaign_code}", ["200", "400", "401", "403", "404"]],
  ["post", "/v2/campaigns/{campaign_code}/contacts", ["200", "400", "401", "403", "404"]],
  ["get", "/v2/contacts", ["200", "400", "401", "403", "404"]],
  ["delete", "/v2/campaigns/{campaign_code}/contacts", ["200", "400", "401", "403", "404", "409", "422"]],
  ["delete", "/v2/campaigns/{campaign_code}/contacts/{contact_id}", ["200", "401", "403", "404", "409"]],
  // As the contact delete endpoint (docs/DECISIONS.md, "Extensions").
  ["get", "/v2/campaigns/{campaign_code}/contacts/{contact_id}/eligibility", ["200", "401", "403", "404"]],
  ["get", "/v1/conversations", ["200", "400", "401", "422"]],
  ["get", "/v1/conversations/{call_id}", ["200", "401", "404"]],
  ["get", "/v1/conversations/{call_id}/transcript", ["200", "401", "404"]],
  ["get", "/v1/conversations/{call_id}/recording", ["200", "401", "404"]],
  ["get", "/v1/conversations/{call_id}/channels/{channel_name}/recording", ["200", "401", "404", "422"]],
  // Agents (docs/AGENTS.md).
  ["post", "/v2/agents", ["201", "400", "401", "409", "422"]],
  ["get", "/v2/agents", ["200", "400", "401"]],
  ["get", "/v2/agents/{agent_id}", ["200", "401", "404"]],
  ["patch", "/v2/agents/{agent_id}", ["200", "400", "401", "404", "409", "422"]],
  ["delete", "/v2/agents/{agent_id}", ["200", "401", "404", "409"]],
  ["put", "/v2/campaigns/{campaign_code}/agent", ["200", "401", "403", "404", "422"]],
  ["put", "/v2/phone-numbers/{phone_number}/agent", ["200", "401", "404", "422"]],
  ["get", "/v1/conversations/{call_id}/fields", ["200", "401", "404"]],
  ["get", "/v1/conversations/{call_id}/latency", ["200", "401", "404"]],
  // As the other campaign endpoints.
  ["get", "/v2/campaigns/{campaign_code}/latency", ["200", "401", "403", "404"]],
  ["post", "/v1/conversations/{call_id}/listen-tickets", ["201", "401", "404"]],
  // docs/SDK_HTTP.md.
  ["post", "/v2/create-outbound", ["200", "400", "401", "403", "422", "501"]],
  ["post", "/v1/llm/generate", ["200", "401", "422", "501", "502"]]
]

const resolve = (spec: any, schema: any): any =>
  schema?.$ref === undefined ? schema : spec.components.schemas[schema.$ref.replace("#/components/schemas/", "")]

await eachBackend("openapi", (it) => {
  it.effect("GET /openapi.json is OpenAPI 3.1 with version master and exactly the documented operations", () =>
    Effect.gen(function*() {
      // The document is public: no key needed.
      const reply = yield* api(null, "GET", "/openapi.json")
      assert.strictEqual(reply.status, 200)
      assert.match(String(reply.headers["content-type"]), /json/)
      const spec = reply.body
      assert.match(spec.openapi, /^3\.1\.\d+$/)
      // The documented API's label for its machine-readable description; the page shows ours.
      assert.strictEqual(spec.info.version, "master")
      assert.match(packageVersion, /^\d+\.\d+\.\d+/)
      assert.isString(spec.info.title)
      const expected = [
        ...documented.public,
        ...documented.unauthenticated,
        ...documented.deprecated,
        ...documented.admin
      ]
        .map(([method, path]) => `${method} ${path}`)
        .sort()
      const actual = Object.entries(spec.paths as Record<string, Record<string, unknown>>)
        .flatMap(([path, operations]) =>
          Object.keys(operations)
            .filter((key) => ["get", "post", "put", "patch", "delete", "head", "options"].includes(key))
            .map((method) => `${method} ${path}`)
        )
        .sort()
      assert.deepStrictEqual(actual, expected)
    }))

  it.effect("lints clean with Redocly's recommended rules: no error, no warning", () =>
    Effect.gen(function*() {
      const reply = yield* api(null, "GET", "/openapi.json")
      // Built in: no redocly.yaml is read and nothing is downloaded.
      const config = yield* Effect.promise(() => createConfig({ extends: ["recommended"] }))
      const problems = yield* Effect.promise(() =>
        lintFromString({ source: reply.text, absoluteRef: "openapi.json", config })
      )
      const report = problems.map((problem) =>
        `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? "#/"}: ${problem.message}`
      )
      assert.deepStrictEqual(report, [], `redocly lint (recommended):\n${report.join("\n")}`)
    }))

  it.effect("every operation has a summary; one relative server; MIT license", () =>
    Effect.gen(function*() {
      const spec = (yield* api(null, "GET", "/openapi.json")).body
      const all = [...documented.public, ...documented.unauthenticated, ...documented.deprecated, ...documented.admin]
      for (const [method, path] of all) {
        assert.isString(spec.paths[path][method].summary, `${method} ${path}`)
      }
      // The SDK's housekeeping calls say explicitly that they need no key.
      for (const [method, path] of documented.unauthenticated) {
        assert.deepStrictEqual(spec.paths[path][method].security, [], `${method} ${path}`)
      }
      assert.strictEqual(spec.paths["/v1/send-sms"].post.summary, "Send an SMS")
      assert.strictEqual(spec.paths["/v1/campaigns"].get.summary, "List campaigns (v1)")
      assert.deepStrictEqual(spec.servers.map((server: any) => server.url), ["/"])
      assert.deepStrictEqual(spec.info.license, { name: "MIT", identifier: "MIT" })
      // The one-member union `modality` is documented as its member (same accepted values).
      const sms = { type: "string", enum: ["sms"] }
      assert.deepStrictEqual(spec.components.schemas.InboundMessage.properties.modality, sms)
      const modality = spec.paths["/v1/messages"].get.parameters.find((p: any) => p.name === "modality")
      assert.deepStrictEqual(modality.schema, sms)
    }))

  it.effect("public operations need the bearer scheme and document the Errors table's statuses", () =>
    Effect.gen(function*() {
      const spec = (yield* api(null, "GET", "/openapi.json")).body
      const schemes = spec.components.securitySchemes
      const bearerNames = Object.keys(schemes).filter((name) =>
        schemes[name].type === "http" && /^bearer$/i.test(schemes[name].scheme)
      )
      assert.isAtLeast(bearerNames.length, 1)
      for (const [method, path] of [...documented.public, ...documented.deprecated]) {
        const operation = spec.paths[path][method]
        assert.isArray(operation.security, `${method} ${path}`)
        const names = operation.security.flatMap((requirement: object) => Object.keys(requirement))
        assert.isTrue(names.length > 0 && names.every((n: string) => bearerNames.includes(n)), `${method} ${path}`)
        assert.include(Object.keys(operation.responses), "401", `${method} ${path}`)
      }
      for (const [method, path, statuses] of documentedErrors) {
        const responses = Object.keys(spec.paths[path][method].responses)
        for (const status of statuses) assert.include(responses, status, `${method} ${path} ${status}`)
      }
      // The campaign, contact and status operations document 403; conversations do not need it.
      assert.include(Object.keys(spec.paths["/v2/contacts"].get.responses), "403")
    }))

  it.effect("422 is FastAPI's HTTPValidationError; other errors are ErrorResponse {detail}", () =>
    Effect.gen(function*() {
      const spec = (yield* api(null, "GET", "/openapi.json")).body
      const validation = spec.components.schemas.HTTPValidationError
      assert.isObject(validation)
      assert.deepStrictEqual(validation.required, ["detail"])
      assert.strictEqual(validation.properties.detail.type, "array")
      const item = resolve(spec, validation.properties.detail.items)
      assert.deepStrictEqual([...(item.required as Array<string>)].sort(), ["loc", "msg", "type"])
      assert.strictEqual(item.properties.loc.type, "array")
      assert.strictEqual(item.properties.msg.type, "string")
      assert.strictEqual(item.properties.type.type, "string")
      const errorResponse = spec.components.schemas.ErrorResponse
      assert.deepStrictEqual(errorResponse.required, ["detail"])
      assert.strictEqual(errorResponse.properties.detail.type, "string")
      const sendSms = spec.paths["/v1/send-sms"].post.responses
      assert.strictEqual(
        sendSms["422"].content["application/json"].schema.$ref,
        "#/components/schemas/HTTPValidationError"
      )
      for (const status of ["400", "401", "403", "500"]) {
        assert.strictEqual(
          sendSms[status].content["application/json"].schema.$ref,
          "#/components/schemas/ErrorResponse",
          status
        )
      }
      const upload =
        spec.paths["/v2/campaigns/{campaign_code}/contacts"].post.responses["400"].content["application/json"].schema
      const variants = (upload.anyOf ?? upload.oneOf ?? [upload]).map((s: any) => s.$ref)
      assert.include(variants, "#/components/schemas/UploadRejectedResponse")
      assert.include(variants, "#/components/schemas/ErrorResponse")
      const rejected = spec.components.schemas.UploadRejectedResponse
      assert.deepStrictEqual([...(rejected.required as Array<string>)].sort(), [
        "created",
        "rejected",
        "rejected_entries"
      ])
    }))

  it.effect("the documented resource schemas carry their documented fields", () =>
    Effect.gen(function*() {
      const spec = (yield* api(null, "GET", "/openapi.json")).body
      const fields = (name: string) => Object.keys(spec.components.schemas[name].properties).sort()
      assert.includeMembers(fields("Campaign"), [
        "id",
        "campaign_code",
        "name",
        "origin_phone_numbers",
        "start_date",
        "end_date",
        "calling_windows",
        "max_attempts",
        "retry_delay_s",
        "max_concurrency",
        "timezone",
        "description",
        "created_datetime",
        "warning"
      ])
      assert.deepStrictEqual(fields("Contact"), ["data", "id", "phone_number", "status"])
      // The eligibility body (docs/DECISIONS.md): exactly its three fields, all required, and every reason.
      const eligibility = spec.components.schemas.ContactEligibility
      assert.deepStrictEqual(fields("ContactEligibility"), ["blocked_by", "callable", "next_eligible_at"])
      assert.deepStrictEqual([...(eligibility.required as Array<string>)].sort(), fields("ContactEligibility"))
      assert.deepStrictEqual(
        spec.paths["/v2/campaigns/{campaign_code}/contacts/{contact_id}/eligibility"].get.responses["200"]
          .content["application/json"].schema.$ref,
        "#/components/schemas/ContactEligibility"
      )
      assert.sameMembers(resolve(spec, eligibility.properties.blocked_by.items).enum, [
        "paused",
        "before_start_date",
        "after_end_date",
        "outside_calling_window",
        "retry_delay",
        "attempts_exhausted",
        "do_not_call",
        "in_progress",
        "final_status",
        "campaign_concurrency_full",
        "organization_concurrency_full"
      ])
      assert.deepStrictEqual(fields("Conversation"), [
        "call_id",
        "campaign_id",
        "direction",
        "duration_sec",
        "from_number",
        "id",
        "termination_reason",
        "to_number",
        "ts"
      ])
      assert.deepStrictEqual(fields("TranscriptTurn"), ["offset_ms", "speaker", "text"])
      assert.deepStrictEqual(fields("InboundMessage"), [
        "content",
        "direction",
        "from_number",
        "id",
        "modality",
        "received_at",
        "to_number"
      ])
      assert.deepStrictEqual(fields("SendSMSResponse"), ["status"])
      const send = resolve(spec, spec.paths["/v1/send-sms"].post.requestBody.content["application/json"].schema)
      assert.deepStrictEqual([...(send.required as Array<string>)].sort(), ["from_number", "message", "to_number"])
      const recording = spec.paths["/v1/conversations/{call_id}/recording"].get.responses["200"].content
      assert.property(recording, "audio/wav")
    }))

  it.effect("admin operations sit under their own tags with their own security; v1 twins are deprecated", () =>
    Effect.gen(function*() {
      const spec = (yield* api(null, "GET", "/openapi.json")).body
      const adminTags = new Set<string>()
      const adminSecurity = new Set<string>()
      for (const [method, path] of documented.admin) {
        const operation = spec.paths[path][method]
        for (const tag of operation.tags) adminTags.add(tag)
        for (const requirement of operation.security) {
          for (const name of Object.keys(requirement)) adminSecurity.add(name)
        }
        assert.notStrictEqual(operation.deprecated, true)
      }
      // The admin API proper, and its event webhooks (docs/WEBHOOKS.md) under a tag of their own.
      assert.sameMembers([...adminTags], ["Admin", "Webhooks"])
      for (const [method, path] of [...documented.public, ...documented.deprecated]) {
        for (const adminTag of adminTags) {
          assert.notInclude(spec.paths[path][method].tags, adminTag, `${method} ${path}`)
        }
        for (const requirement of spec.paths[path][method].security) {
          for (const name of Object.keys(requirement)) assert.isFalse(adminSecurity.has(name), `${method} ${path}`)
        }
      }
      assert.includeMembers(spec.tags.map((t: any) => t.name), [...adminTags])
      for (const [method, path] of documented.deprecated) {
        assert.strictEqual(spec.paths[path][method].deprecated, true, `${method} ${path}`)
      }
      for (const [method, path] of documented.public) {
        assert.notStrictEqual(spec.paths[path][method].deprecated, true, `${method} ${path}`)
      }
    }))

  it.effect("/docs answers an HTML page", () =>
    Effect.gen(function*() {
      const docs = yield* api(null, "GET", "/docs")
      assert.strictEqual(docs.status, 200)
      assert.match(String(docs.headers["content-type"]), /^text\/html/)
      assert.match(docs.text, /<html/i)
    }))

  it.effect("/docs preselects the bearer API key scheme, so 'Test Request' sends the key", () =>
    Effect.gen(function*() {
      const docs = yield* api(null, "GET", "/docs")
      // The page spreads its Scalar configuration into createApiReference before `content`.
      const config = /createApiReference\([^,]*,\s*\{\s*\.\.\.(\{.*?\}),\s*content:/s.exec(docs.text)?.[1]
      assert(config !== undefined, "Scalar configuration not found in /docs")
      const scalar = JSON.parse(config)
      assert.deepStrictEqual(scalar.authentication, { preferredSecurityScheme: "bearer" })
      // That name is the document's bearer scheme, the one the public operations require.
      const spec = (yield* api(null, "GET", "/openapi.json")).body
      assert.deepStrictEqual(spec.paths["/v2/campaigns"].get.security, [{ bearer: [] }])
      // The registered, lower-case scheme name: Scalar shows a token field for `bearer` only
      // (for `Bearer` it asks for a username and password). The admin token likewise.
      assert.deepStrictEqual(spec.components.securitySchemes.bearer, { type: "http", scheme: "bearer" })
      assert.strictEqual(spec.components.securitySchemes.adminToken.scheme, "bearer")
      // The page embeds the same document.
      assert.deepStrictEqual(embeddedDocument(docs.text).components.securitySchemes, spec.components.securitySchemes)
    }))

  it.effect("GET / redirects to the web console; other methods answer in the API's shape", () =>
    Effect.gen(function*() {
      const root = yield* api(null, "GET", "/")
      assert.include([302, 307], root.status)
      assert.strictEqual(root.headers.location, "/console/")
      const post = yield* api(null, "POST", "/")
      assert.isAtLeast(post.status, 400)
      assert.isString(post.body.detail)
    }))
})

// The admin API off (no VOICE_AGENT_ADMIN_TOKEN): its routes answer 404, so the document and the
// page leave it out, with its tags, security scheme and the schemas only it uses. Storage plays
// no part in the document: PGlite alone.
describe("the API reference with the admin API off", () => {
  layer(serve(TestDatabase.pglite, { token: Option.none() }), { timeout: "60 seconds", excludeTestServices: true })(
    (it) => {
      it.effect("neither /openapi.json nor /docs shows the admin API", () =>
        Effect.gen(function*() {
          const spec = (yield* call("GET", "/openapi.json", { token: null })).body
          const paths = Object.keys(spec.paths)
          assert.deepStrictEqual(paths.filter((path) => path.startsWith("/admin")), [])
          assert.include(paths, "/v2/campaigns")
          assert.deepStrictEqual(Object.keys(spec.components.securitySchemes), ["bearer"])
          const tags = spec.tags.map((tag: any) => tag.name)
          assert.notInclude(tags, "Admin")
          assert.notInclude(tags, "Webhooks")
          // No model is left that only the admin operations used (the page lists every model).
          const orphans = Object.keys(spec.components.schemas).filter((name) => !referencedSchemas(spec).has(name))
          assert.deepStrictEqual(orphans, [])
          assert.notProperty(spec.components.schemas, "Organization")
        }))

      it.effect("the page embeds the same document, without an admin path", () =>
        Effect.gen(function*() {
          const client = yield* HttpClient.HttpClient
          const page = yield* (yield* client.get("/docs")).text
          const embedded = embeddedDocument(page)
          assert.deepStrictEqual(Object.keys(embedded.paths).filter((path) => path.startsWith("/admin")), [])
          assert.notInclude(page, "/admin/v1")
          assert.strictEqual(embedded.info.version, packageVersion)
          // The routes are still off: 404 as if they did not exist.
          const admin = yield* call("POST", "/admin/v1/organizations", { token: null, body: { name: "x" } })
          assert.strictEqual(admin.status, 404)
        }))
    }
  )
})
