/**
 * Secrets at rest and in comparison (issue 12, "Security"):
 *
 * - API keys are stored as SHA-256 digests: read through SQL, no row of any table holds a key,
 *   its random part or an encoding of it, and the stored digest is not itself a key. On both
 *   backends.
 * - Every secret the code compares (API keys, the admin token, media stream tokens, our webhook
 *   signatures, Twilio's, list cursors) is compared with `timingSafeEqual`: the source tree is
 *   scanned for every call site and for `===`/`!==` on anything named like a secret, so a new
 *   comparison fails this test until it is reviewed here. Each comparison refuses the near
 *   misses: another value of the same length, shorter, longer, empty, a prefix, a case change.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TwilioSignature from "@voice-agent/carrier-twilio/TwilioSignature"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as WebhookSignature from "@voice-agent/engine/WebhookSignature"
import { secretsEqual } from "@voice-agent/http/handlers/Admin"
import { CursorCodec } from "@voice-agent/http/handlers/Cursor"
import { hashApiKey } from "@voice-agent/store-sql/SqlApiKeyRepository"
import { Effect, Exit, Layer, Option, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { admin, adminToken, api, assertDetail, eachBackend, organization, request } from "../http/support/ApiServer.ts"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** The near misses of a secret: same length, shorter, longer, empty, case changes, spaces. */
const nearMisses = (secret: string): ReadonlyArray<string> => {
  const last = secret.at(-1)!
  const flipped = last === "A" ? "B" : "A"
  return [
    secret.slice(0, -1) + flipped,
    flipped + secret.slice(1),
    secret.slice(0, -1),
    secret.slice(1),
    `${secret}A`,
    `${secret}${secret}`,
    secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase(),
    "",
    " ",
    "x".repeat(4096)
  ].filter((candidate) => candidate !== secret)
}

/** Every string that would betray `key` if a row held it. */
const encodingsOf = (key: string): ReadonlyArray<string> => {
  const random = key.replace(/^va_/, "")
  const bytes = Buffer.from(random, "base64url")
  return [key, random, bytes.toString("hex"), bytes.toString("base64"), random.slice(0, 16), random.slice(-16)]
}

await eachBackend("secrets at rest", (it) => {
  it.effect(
    "API keys are stored as their SHA-256 digest; no row of any table holds a key or an encoding of it",
    () =>
      Effect.gen(function*() {
        const org = yield* organization()
        const second = (yield* admin("POST", `/admin/v1/organizations/${org.id}/api-keys`, undefined, 201)).body
        const revoked = (yield* admin("POST", `/admin/v1/organizations/${org.id}/api-keys`, undefined, 201)).body
        yield* admin("DELETE", `/admin/v1/organizations/${org.id}/api-keys/${revoked.id}`, undefined, 200)
        const keys = [org.key, second.api_key as string, revoked.api_key as string]
        for (const key of keys) assert.match(key, /^va_[A-Za-z0-9_-]{43}$/, "va_ + 32 random bytes")

        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<Record<string, unknown>>`
        SELECT * FROM api_keys WHERE organization_id = ${org.id} ORDER BY created_at`.pipe(Effect.orDie)
        assert.strictEqual(rows.length, 3)
        // The columns are exactly these: a new one is a place a key could end up in clear.
        assert.deepStrictEqual(Object.keys(rows[0]!).sort(), [
          "created_at",
          "id",
          "key_hash",
          "organization_id",
          "revoked_at"
        ])
        const stored = rows.map((row) => row["key_hash"] as string).sort()
        assert.deepStrictEqual(stored, keys.map((key) => createHash("sha256").update(key).digest("hex")).sort())
        assert.deepStrictEqual(stored, keys.map(hashApiKey).sort())

        // Nowhere in the database: every row of every table, as text.
        const tables = yield* sql<{ readonly name: string }>`
        SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.pipe(Effect.orDie)
        assert.isAbove(tables.length, 10)
        for (const { name } of tables) {
          const dump = (yield* sql<{ readonly row: unknown }>`SELECT row_to_json(t)::text AS row FROM ${sql(name)} t`
            .pipe(Effect.orDie)).map((r) => String(r.row)).join("\n")
          for (const key of keys) {
            for (const encoding of encodingsOf(key)) assert.notInclude(dump, encoding, `table ${name}`)
          }
        }

        // The digest is not a key, and the keys still authenticate (the revoked one not).
        for (const hash of stored) assertDetail(yield* api(hash, "GET", "/v1/phone-numbers"), 401)
        assert.strictEqual((yield* api(org.key, "GET", "/v1/phone-numbers")).status, 200)
        assert.strictEqual((yield* api(second.api_key, "GET", "/v1/phone-numbers")).status, 200)
        assertDetail(yield* api(revoked.api_key, "GET", "/v1/phone-numbers"), 401)
      }),
    30_000
  )

  it.effect("an API key is compared in full: every near miss is 401, through every kind of route", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (const candidate of [...nearMisses(org.key), org.key.replace(/^va_/, ""), hashApiKey(org.key)]) {
        for (
          const [method, url] of [["GET", "/v1/phone-numbers"], ["GET", "/v2/agents"], ["POST", "/v1/llm/generate"]]
        ) {
          const reply = yield* request(method!, url!, {
            headers: { authorization: `Bearer ${candidate}` },
            ...(method === "POST" ? { json: { prompt: "hi" } } : {})
          })
          assertDetail(reply, 401, `${url} with ${JSON.stringify(candidate.slice(0, 60))}`)
        }
      }
      // The OpenAI-compatible proxy (not in the OpenAPI document) checks the key the same way.
      const proxied = yield* request("GET", "/openai/v1/models", {
        headers: { authorization: `Bearer ${org.key.slice(0, -1)}` }
      })
      assertDetail(proxied, 401)
      assert.strictEqual((yield* api(org.key, "GET", "/v1/phone-numbers")).status, 200)
    }))

  it.effect("the admin token is compared in full: every near miss is 401", () =>
    Effect.gen(function*() {
      const url = "/admin/v1/organizations"
      for (const candidate of nearMisses(adminToken)) {
        const reply = yield* request("POST", url, {
          headers: { authorization: `Bearer ${candidate}` },
          json: { name: "made with a wrong token" }
        })
        // An empty or blank token is not even a bearer credential: 401 as well.
        assertDetail(reply, 401, JSON.stringify(candidate.slice(0, 60)))
      }
      assert.strictEqual((yield* request("POST", url, { token: adminToken, json: { name: "ok" } })).status, 201)
    }))
})

// ------------------------------------------------------------------------------------------
// Where the code compares secrets.

/** The engine's own source files (no tests, no test helpers). */
const sourceFiles = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!["node_modules", "dist", "testing", "test", "fixtures"].includes(entry.name)) walk(full)
      } else if (entry.name.endsWith(".ts") && !/\.(test|d)\.ts$/.test(entry.name)) {
        found.push(path.relative(repoRoot, full))
      }
    }
  }
  for (const root of ["packages", "daemon/src", "examples"]) walk(path.join(repoRoot, root))
  return found.sort()
}

/**
 * Every place that compares a secret, and why it is safe. A new call site of `timingSafeEqual`,
 * or a new `===` on something named like a secret, fails the scan until it is listed here.
 */
const reviewed = {
  timingSafeEqual: {
    "packages/carrier-twilio/src/TwilioSignature.ts": "X-Twilio-Signature (HMAC-SHA1, base64) against each URL variant",
    "packages/engine/src/MediaToken.ts": "a media stream token's HMAC-SHA256, after a fixed-length check",
    "packages/engine/src/WebhookSignature.ts": "Standard Webhooks v1 signatures (our receivers and tests)",
    "packages/http/src/handlers/Admin.ts": "the admin token: SHA-256 of both sides, so lengths never differ",
    "packages/http/src/handlers/Cursor.ts": "a list cursor's 16-byte HMAC tag",
    "packages/store-sql/src/SqlApiKeyRepository.ts": "the stored key digest against the presented key's digest"
  } as Record<string, string>,
  // Lines with `===`/`!==` on a secret-like name that compare no secret.
  equality: [
    // The presented signature against its own canonical re-encoding (both the caller's).
    "packages/engine/src/MediaToken.ts: given.toString(\"base64url\") !== signature",
    "packages/http/src/handlers/Cursor.ts: given.toString(\"base64url\") !== signature",
    // The console: is the key the browser holds still the one this failed request used (both the
    // operator's own), so that a 401 forgets only a key that was not replaced meanwhile.
    "packages/console/src/api/Client.ts: Session.get(credential) === token"
  ]
}

const secretName = /(token|secret|signature|password|apikey|api_key|keyhash|key_hash|digest|hmac|\bmac\b|credential)/i
const literalOperand = /^(typeof\b.*|undefined|null|""|''|``|\d+|"[^"]*"|'[^']*'|true|false)$/

describe("constant-time comparisons", () => {
  it("every comparison of a secret in the source is a timingSafeEqual that was reviewed; none uses ===", () => {
    const sites: Record<string, string> = {}
    const equalities: Array<string> = []
    const seen: Array<string> = []
    for (const file of sourceFiles()) {
      const lines = fs.readFileSync(path.join(repoRoot, file), "utf8").split("\n")
      for (const line of lines) {
        const code = line.trim()
        if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) continue
        if (/timingSafeEqual\(/.test(code)) sites[file] = reviewed.timingSafeEqual[file] ?? "NOT REVIEWED"
        const operand = String.raw`("[^"]*"|'[^']*'|[\w$.[\]?]+(?:\([^()]*\))?)`
        for (const match of code.matchAll(new RegExp(`${operand}\\s*(===|!==|==|!=)\\s*${operand}`, "g"))) {
          const [, left, , right] = match
          if (literalOperand.test(left!) || literalOperand.test(right!)) continue
          if (!secretName.test(left!) && !secretName.test(right!)) continue
          const entry = `${file}: ${match[0]}`
          if (reviewed.equality.includes(entry)) seen.push(entry)
          else equalities.push(entry)
        }
      }
    }
    assert.deepStrictEqual(sites, reviewed.timingSafeEqual, "timingSafeEqual call sites")
    assert.deepStrictEqual(equalities, [], "=== or !== on a secret: compare with timingSafeEqual instead")
    assert.deepStrictEqual(seen.sort(), [...reviewed.equality].sort(), "the reviewed lines are still there")
    // The API key check of the WebSocket routes, live listen and the model proxy is the
    // repository's: none of them compares a key itself.
    for (
      const file of [
        "packages/engine/src/ListenRoute.ts",
        "packages/sdk-agents/src/Routes.ts",
        "packages/http/src/handlers/ModelProxy.ts"
      ]
    ) {
      const text = fs.readFileSync(path.join(repoRoot, file), "utf8")
      assert.include(text, ".authenticate(", file)
    }
  })

  it("the admin token: equal only to itself, whatever the lengths", () => {
    assert.isTrue(secretsEqual("s3cret-admin-token", "s3cret-admin-token"))
    for (const candidate of nearMisses("s3cret-admin-token")) {
      assert.isFalse(secretsEqual(candidate, "s3cret-admin-token"), JSON.stringify(candidate.slice(0, 40)))
    }
  })

  it("media stream tokens: a near miss of the signature, of the expiry or of the call id is refused", () => {
    const key = MediaToken.keyFrom(new Uint8Array(32).fill(3))
    const now = 1_800_000_000_000
    const token = MediaToken.sign(key, "call-1", now + 60_000)
    assert.deepStrictEqual(MediaToken.verify(key, token, now), Option.some("call-1"))
    const [id, expiry, signature] = token.split(".") as [string, string, string]
    const candidates = [
      ...nearMisses(signature).map((s) => `${id}.${expiry}.${s}`),
      ...nearMisses(expiry).map((e) => `${id}.${e}.${signature}`),
      `${Buffer.from("call-2").toString("base64url")}.${expiry}.${signature}`,
      ...nearMisses(token)
    ]
    for (const candidate of candidates) {
      assert.isTrue(Option.isNone(MediaToken.verify(key, candidate, now)), candidate.slice(0, 80))
    }
  })

  it("our webhook signatures: a near miss of the signature is refused", () => {
    const secret = new Uint8Array(32).fill(9)
    const now = 1_800_000_000
    const body = "{\"type\":\"call.ended\"}"
    const good = WebhookSignature.sign(secret, "msg_1", now, body)
    const check = (signature: string) =>
      WebhookSignature.verify(secret, { id: "msg_1", timestamp: String(now), signature }, body, now)
    assert.isTrue(Result.isSuccess(check(good)))
    const encoded = good.slice(3)
    const mac = Buffer.from(encoded, "base64")
    for (
      const candidate of [
        ...nearMisses(good),
        ...nearMisses(encoded).map((s) => `v1,${s}`),
        "v1,",
        "v2," + encoded
      ]
    ) {
      // Without its `=` padding the signature still decodes to the very same MAC bytes, which
      // only the secret's holder can produce: accepted, and no weakness.
      const [, given] = candidate.split(",", 2)
      if (candidate.startsWith("v1,") && Buffer.from(given ?? "", "base64").equals(mac)) continue
      assert.isTrue(Result.isFailure(check(candidate)), candidate.slice(0, 80))
    }
  })

  it("Twilio signatures: a near miss of the signature is refused", () => {
    const authToken = Redacted.make("0123456789abcdef0123456789abcdef")
    const url = "https://voice.example.com/carrier/twilio/sms"
    const params = { MessageSid: "SM1", Body: "hi" }
    const good = TwilioSignature.sign(authToken, url, params)
    assert.isTrue(TwilioSignature.validate(authToken, good, url, params))
    for (const candidate of [...nearMisses(good), undefined]) {
      assert.isFalse(TwilioSignature.validate(authToken, candidate, url, params), String(candidate).slice(0, 80))
    }
  })

  it.effect("list cursors: a near miss of the tag, another organization's or another list's is refused", () =>
    Effect.gen(function*() {
      const codec = yield* CursorCodec
      const cursor = codec.encode("contacts", "org-a", { id: 42 })
      assert.deepStrictEqual(yield* codec.decode("contacts", "org-a", cursor), { id: 42 })
      const [payload, tag] = cursor.split(".") as [string, string]
      for (
        const [kind, org, candidate] of [
          ...nearMisses(tag).map((t) => ["contacts", "org-a", `${payload}.${t}`] as const),
          ["contacts", "org-b", cursor] as const,
          ["agents", "org-a", cursor] as const
        ]
      ) {
        const exit = yield* Effect.exit(codec.decode(kind, org, candidate))
        assert.isTrue(Exit.isFailure(exit), `${kind} ${org} ${candidate.slice(0, 60)}`)
      }
    }).pipe(
      Effect.provide(CursorCodec.layer.pipe(
        Layer.provide(Layer.succeed(ServerSecrets, ServerSecrets.of({ cursorKey: Effect.succeed(new Uint8Array(32)) })))
      ))
    ))
})
