/**
 * The baseline of `compare.ts`'s `GET /v2/campaigns/{code}`: what a careful hand-written server
 * does for it, and no more, on `node:http`: the bearer key hashed (SHA-256) and looked up by its
 * unique index with its organization, the hash compared in constant time, the campaign read by
 * organization and code, the row sent as JSON. With the `pg` driver (a pool of 10), or with
 * `RAW_DRIVER=effect` the engine's own (@effect/sql-pg). `DATABASE_URL` names the database of a
 * daemon that created them.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import http from "node:http"
import pg from "pg"

const url = process.env["DATABASE_URL"]
if (url === undefined) throw new Error("DATABASE_URL is required")

const ownerQuery = `
  SELECT o.id::text AS "organizationId", k.key_hash AS "keyHash"
  FROM api_keys k JOIN organizations o ON o.id = k.organization_id
  WHERE k.key_hash = $1 AND k.revoked_at IS NULL`
const campaignQuery = `
  SELECT id::text AS "id", code AS "campaign_code", name, origin_phone_numbers, start_date::text AS "start_date",
    end_date::text AS "end_date", calling_windows, max_attempts, retry_delay_s, max_concurrency, timezone,
    description, enabled, created_at
  FROM campaigns WHERE organization_id = $1 AND code = $2 AND deleted_at IS NULL`

type Query = (text: string, values: ReadonlyArray<string>) => Promise<ReadonlyArray<Record<string, unknown>>>

const driver = (): { query: Query; close: () => Promise<void> } => {
  if (process.env["RAW_DRIVER"] === "effect") {
    const runtime = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 10 }))
    return {
      query: (text, values) => runtime.runPromise(Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(text, values))),
      close: () => runtime.dispose()
    }
  }
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  return {
    query: (text, values) => pool.query({ text, values: [...values] }).then((result) => result.rows),
    close: () => pool.end()
  }
}
const { close, query } = driver()

const answer = async (key: string, code: string): Promise<{ status: number; body: unknown }> => {
  const hash = createHash("sha256").update(key, "utf8").digest("hex")
  const [owner] = await query(ownerQuery, [hash])
  if (
    owner === undefined || !timingSafeEqual(Buffer.from(String(owner["keyHash"]), "hex"), Buffer.from(hash, "hex"))
  ) {
    return { status: 401, body: { detail: "Invalid API key" } }
  }
  const [campaign] = await query(campaignQuery, [String(owner["organizationId"]), code])
  return campaign === undefined
    ? { status: 404, body: { detail: "Campaign not found" } }
    : { status: 200, body: campaign }
}

const server = http.createServer((request, response) => {
  const code = /^\/v2\/campaigns\/([^/?]+)$/.exec(request.url ?? "")?.[1]
  const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body)
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    response.end(text)
  }
  if (request.method !== "GET" || code === undefined) return send(404, { detail: "Not Found" })
  if (key === undefined) return send(401, { detail: "Not authenticated" })
  answer(key, code).then(
    ({ body, status }) => send(status, body),
    () => send(500, { detail: "Internal Server Error" })
  )
})

server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  if (address !== null && typeof address === "object") console.log(`listening on http://127.0.0.1:${address.port}`)
})
process.on("SIGTERM", () => {
  server.close()
  void close().then(() => process.exit(0))
})
