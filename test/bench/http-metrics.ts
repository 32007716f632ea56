/**
 * What metrics cost an API request (docs/OPERATIONS.md): two `voice-agent serve` daemons side by
 * side, one with `VOICE_AGENT_METRICS=on` (the default: every request counted and timed by
 * route and status) and one with `off`, each on a database of its own (embedded in memory; or,
 * with `BENCH_POSTGRES=<server URL>`, a fresh database each on that PostgreSQL server), traces
 * off in both. Rounds of `GET /v2/campaigns/{code}` (16 requests in flight, keep-alive) alternate
 * between them so that a machine's drift hits both alike; the median of each side's rounds and
 * their ratio are printed, with the daemon's CPU time per request (from /proc, user + system;
 * steadier than throughput on a loaded machine). Each round of one side is paired with the
 * other's next to it: the median of those paired ratios is printed with a 95% interval
 * (bootstrap, 2,000 resamples), which says whether a difference of a few percent is the metrics'
 * or the machine's. `--control` runs both daemons with metrics off (an A/A run: the noise).
 *
 *     node test/bench/http-metrics.ts [rounds=7] [requests per round=3000] [--control]
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import http from "node:http"
import { performance } from "node:perf_hooks"
import pg from "pg"
import { median, pairedRatio, showInterval } from "./Paired.ts"

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const control = process.argv.includes("--control")
const rounds = Number(args[0] ?? 7)
const perRound = Number(args[1] ?? 3000)
const server = process.env["BENCH_POSTGRES"]

const freshDatabase = async (name: string): Promise<string> => {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await client.query(`CREATE DATABASE ${name}`)
  await client.end()
  const url = new URL(server!)
  url.pathname = `/${name}`
  return url.toString()
}

const daemons: Array<ChildProcess> = []

const start = async (side: string, metrics: "on" | "off") => {
  const storage = server === undefined
    ? { args: ["--data-dir", ":memory:"], env: {} }
    : { args: [], env: { DATABASE_URL: await freshDatabase(`voice_agent_bench_metrics_${side}`) } }
  const child = spawn(process.execPath, ["daemon/src/bin.ts", "serve", "--port", "0", ...storage.args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      ...process.env,
      ...storage.env,
      VOICE_AGENT_ADMIN_TOKEN: "",
      VOICE_AGENT_METRICS: metrics,
      VOICE_AGENT_WORKERS: "1"
    }
  })
  daemons.push(child)
  return new Promise<{ key: string; base: string; pid: number }>((resolve, reject) => {
    let out = ""
    let key: string | undefined
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      key ??= /API key: (va_[A-Za-z0-9_-]+)/.exec(out)?.[1]
      const base = /ready on (http:\/\/[^\s]+)/.exec(out)?.[1]
      if (key !== undefined && base !== undefined) resolve({ key, base, pid: child.pid! })
    })
    child.on("exit", (code) => reject(new Error(`daemon exited with ${code}:\n${out}`)))
  })
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 })

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

/** One round: `perRound` requests, 16 in flight; answers requests per second. */
const round = async (run: () => Promise<{ status: number }>) => {
  let next = 0
  const begin = performance.now()
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < perRound) {
      next++
      const { status } = await run()
      if (status !== 200) throw new Error(`status ${status}`)
    }
  }))
  return perRound / ((performance.now() - begin) / 1000)
}

/** User + system CPU seconds of process `pid` so far (Linux /proc; clock ticks of 10 ms). */
const cpuSeconds = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

try {
  const plan = [
    { side: "on", metrics: control ? "off" : "on" },
    { side: "off", metrics: "off" }
  ] as const
  const sides = await Promise.all(plan.map(async ({ metrics, side }) => {
    const { base, key, pid } = await start(side, metrics)
    const created = JSON.parse(
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
    const get = () => call(base, key, "GET", `/v2/campaigns/${created.campaign_code}`)
    await round(get) // warm-up
    return { side, get, pid, figures: [] as Array<number>, cpu: [] as Array<number> }
  }))
  for (let r = 0; r < rounds; r++) {
    // Alternate which side goes first.
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      const before = cpuSeconds(side.pid)
      side.figures.push(await round(side.get))
      side.cpu.push((cpuSeconds(side.pid) - before) / perRound * 1e6)
    }
  }
  const [on, off] = sides.map((side) => median(side.figures)) as [number, number]
  const [onCpu, offCpu] = sides.map((side) => median(side.cpu)) as [number, number]
  for (const side of sides) {
    console.log(
      `GET /v2/campaigns/{code}, metrics ${side.side.padEnd(3)} ${median(side.figures).toFixed(0)} req/s (${
        Math.min(...side.figures).toFixed(0)
      }–${Math.max(...side.figures).toFixed(0)}, n=${rounds}); CPU ${median(side.cpu).toFixed(0)} µs/req`
    )
  }
  const paired = (figures: (side: (typeof sides)[number]) => ReadonlyArray<number>) => {
    const [a, b] = sides.map(figures) as [ReadonlyArray<number>, ReadonlyArray<number>]
    return showInterval(pairedRatio(a, b))
  }
  console.log(
    `metrics ${control ? "off (A/A control)" : "on"} / off: throughput ${(on / off).toFixed(3)}, CPU per request ${
      (onCpu / offCpu).toFixed(3)
    }; paired by round: throughput ${paired((side) => side.figures)}, CPU per request ${paired((side) => side.cpu)} (${
      server === undefined ? "embedded database" : "PostgreSQL"
    })`
  )
} finally {
  for (const daemon of daemons) daemon.kill("SIGTERM")
  agent.destroy()
}
