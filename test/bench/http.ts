/**
 * HTTP benchmark of a real daemon (part of `npm run bench:parts`): starts `voice-agent serve` on the
 * embedded database in memory (or on the server `DATABASE_URL` names: give it an empty
 * database, the daemon seeds its demo organization there), reads the demo key it prints, and
 * measures from a keep-alive client in this process (16 requests in flight) what an API user
 * sees:
 * - `GET /v2/campaigns` (key lookup, organization check, one query);
 * - `GET /v2/contacts?limit=100` over 10,000 contacts (one keyset page, 100 contacts encoded);
 * - `POST …/contacts` with 10,000 contacts (1 MB of JSON, one transaction), 3 times.
 * Client and server share this machine's cores, so figures are floors for the server.
 */
import { spawn } from "node:child_process"
import http from "node:http"
import { performance } from "node:perf_hooks"

const daemon = spawn(process.execPath, ["daemon/src/bin.ts", "serve", "--port", "0", "--data-dir", ":memory:"], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, VOICE_AGENT_ADMIN_TOKEN: "" }
})

const started = new Promise<{ key: string; base: string }>((resolve, reject) => {
  let out = ""
  let key: string | undefined
  daemon.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString()
    key ??= /API key: (va_[A-Za-z0-9_-]+)/.exec(out)?.[1]
    const base = /ready on (http:\/\/[^\s]+)/.exec(out)?.[1]
    if (key !== undefined && base !== undefined) resolve({ key, base })
  })
  daemon.on("exit", (code) => reject(new Error(`daemon exited with ${code}:\n${out}`)))
})

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })

const call = (base: string, key: string, method: string, path: string, body?: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(`${base}${path}`, {
      method,
      agent,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (c: Buffer) => chunks.push(c))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
    })
    request.on("error", reject)
    request.end(body)
  })

const quantile = (values: ReadonlyArray<number>, q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN

const load = async (name: string, total: number, run: () => Promise<{ status: number }>) => {
  const latencies: Array<number> = []
  let next = 0
  const start = performance.now()
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < total) {
      next++
      const t = performance.now()
      const { status } = await run()
      if (status !== 200) throw new Error(`${name}: status ${status}`)
      latencies.push(performance.now() - t)
    }
  }))
  const seconds = (performance.now() - start) / 1000
  console.log(
    `${name.padEnd(44)} ${String(total).padStart(5)} req  ${(total / seconds).toFixed(0).padStart(6)} req/s  p50 ${
      quantile(latencies, 0.5).toFixed(1)
    } ms  p95 ${quantile(latencies, 0.95).toFixed(1)} ms`
  )
}

try {
  const { base, key } = await started
  const campaign = JSON.parse(
    (await call(
      base,
      key,
      "POST",
      "/v2/campaigns",
      JSON.stringify({
        name: "bench",
        origin_phone_numbers: ["+12025550100"],
        start_date: "2026-01-01",
        calling_windows: [{ day: 0, start_time: "09:00", end_time: "17:00" }]
      })
    )).text
  ) as { campaign_code: string }
  const upload = (offset: number) =>
    JSON.stringify({
      contacts: Array.from({ length: 10_000 }, (_, i) => ({
        phone_number: `+1303${String(2_000_000 + offset + i)}`,
        data: { first_name: "Ann", customer_id: `c-${offset + i}` }
      }))
    })
  for (let run = 0; run < 3; run++) {
    const body = upload(run * 10_000)
    const t = performance.now()
    const { status } = await call(
      base,
      key,
      "POST",
      `/v2/campaigns/${campaign.campaign_code}/contacts?accepted_terms_of_service=true`,
      body
    )
    console.log(
      `POST 10,000 contacts (${(body.length / 1e6).toFixed(1)} MB)`.padEnd(44),
      `status ${status}  ${(performance.now() - t).toFixed(0)} ms`
    )
  }
  await load("GET /v2/campaigns", 3000, () => call(base, key, "GET", "/v2/campaigns"))
  await load("GET /v2/contacts?limit=100", 2000, () => call(base, key, "GET", "/v2/contacts?limit=100"))
} finally {
  daemon.kill("SIGTERM")
  agent.destroy()
}
