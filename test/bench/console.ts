/**
 * The web console's figures (issue 22), in Debian's headless Chromium (playwright-core through
 * `executablePath`, as the console's tests drive it) against a local daemon on PostgreSQL
 * (127.0.0.1:5432, a fresh database):
 * - first load: the JavaScript and CSS that `/console/` loads before its first page is drawn
 *   (index.html's script, stylesheet and module preloads; not the chunks loaded later: the call
 *   page's player, the upload worker), gzipped as the daemon serves them; goal under 300 KB;
 * - interactive: from navigation start to the first campaign list drawn (the page's
 *   `console:campaigns-rendered` mark), a cold cache each run, 10 campaigns; goal under 1 s;
 *   and how much of it passed before every module was evaluated (`console:modules-evaluated`);
 * - a contact page at 1,000,000 contacts (one campaign, seeded in SQL): from the end of the
 *   API's answer (the resource timing of `GET /v2/contacts`) to the page drawn (the
 *   `console:contacts-rendered` mark, set in the frame after the list is committed), the first
 *   page and the next one; goal within 200 ms;
 * - live listen: from the click on Listen to the first audio played (the ticket, the WebSocket,
 *   the first frame and the page's 120 ms jitter buffer), on calls already answered.
 * Browser, daemon and database share the machine's cores. Alone: `node test/bench/console.ts`;
 * `npm run bench` adds its rows to BENCHMARKS.md.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import fs from "node:fs"
import path from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import zlib from "node:zlib"
import type { Browser, Page } from "playwright-core"
import { chromium } from "playwright-core"
import * as Chromium from "../support/Chromium.ts"
import { psql } from "./Psql.ts"

const RUNS = Number(process.env["BENCH_RUNS"] ?? 5)
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const dist = path.join(repo, "packages/console/dist")

/**
 * A row of BENCHMARKS.md.
 *
 * @category models
 */
export interface ConsoleRow {
  readonly figure: string
  readonly ours: string
  readonly baseline: string
  readonly ratio: string
  readonly goal: string
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const spread = (values: ReadonlyArray<number>, unit: string, digits = 0) =>
  `${median(values).toFixed(digits)} ${unit} (${Math.min(...values).toFixed(digits)}–${
    Math.max(...values).toFixed(digits)
  }, n=${values.length})`

/** First-load JavaScript and CSS of the build, in bytes: as built, gzipped, Brotli. */
const firstLoad = () => {
  const html = fs.readFileSync(path.join(dist, "index.html"), "utf8")
  const files = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!)
  if (files.length === 0) throw new Error("packages/console is not built: run npm run build")
  const sizes = files.map((file) => {
    const bytes = fs.readFileSync(path.join(dist, file))
    return {
      raw: bytes.length,
      gzip: zlib.gzipSync(bytes, { level: 9 }).length,
      brotli: fs.statSync(path.join(dist, `${file}.br`)).size
    }
  })
  const sum = (key: "raw" | "gzip" | "brotli") => sizes.reduce((total, s) => total + s[key], 0)
  return { files, raw: sum("raw"), gzip: sum("gzip"), brotli: sum("brotli") }
}

interface Daemon {
  readonly base: string
  readonly key: string
  /** Everything the daemon printed so far. */
  readonly output: () => string
  readonly stop: () => Promise<void>
}

const startDaemon = (databaseUrl: string): Promise<Daemon> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["daemon/src/bin.ts", "serve", "--port", "0"], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DATABASE_URL: databaseUrl, VOICE_AGENT_ADMIN_TOKEN: "", VOICE_AGENT_WORKERS: "1" }
    })
    let out = ""
    let key: string | undefined
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      key ??= /API key: (va_[A-Za-z0-9_-]+)/.exec(out)?.[1]
      const base = /ready on (http:\/\/\S+)/.exec(out)?.[1]
      if (base !== undefined && key !== undefined) {
        resolve({
          base,
          key,
          output: () => out,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done()
              child.once("exit", () => done())
              child.kill("SIGTERM")
            })
        })
      }
    })
    child.stderr.on("data", (chunk: Buffer) => void (out += chunk.toString()))
    child.on("exit", (code) => reject(new Error(`daemon exited with ${code}:\n${out}`)))
  })

const api = async (daemon: Daemon, method: string, url: string, body?: unknown) => {
  const response = await fetch(`${daemon.base}${url}`, {
    method,
    headers: { authorization: `Bearer ${daemon.key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as any
}

const campaign = (daemon: Daemon, name: string, enabled: boolean, concurrency = 5) =>
  api(daemon, "POST", "/v2/campaigns", {
    name,
    origin_phone_numbers: ["+12025550100"],
    start_date: "2026-01-01",
    calling_windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
    timezone: "UTC",
    max_concurrency: concurrency
  }).then(async (created: { campaign_code: string; id: string }) => {
    if (!enabled) {
      await api(daemon, "PATCH", `/v2/campaigns/${created.campaign_code}`, { enabled: false })
    }
    return created
  })

/** A page of a fresh browser context (a cold cache) signed in with the key. */
const signedIn = async (browser: Browser, key: string): Promise<Page> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  await context.addInitScript((k) => sessionStorage.setItem("voice-agent.console.api-key", k), key)
  const page = await context.newPage()
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`))
  page.on("console", (message) => message.type() === "error" && console.error(`console: ${message.text()}`))
  return page
}

// Functions, not strings: the console's Content-Security-Policy refuses eval.
const markTime = (page: Page, name: string) =>
  page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, name).then(() =>
    page.evaluate((mark) => performance.getEntriesByName(mark).at(-1)!.startTime, name)
  )

const marks = (page: Page, name: string) => page.evaluate((mark) => performance.getEntriesByName(mark).length, name)

const interactive = async (browser: Browser, daemon: Daemon) => {
  const drawn: Array<number> = []
  const evaluated: Array<number> = []
  for (let run = 0; run < RUNS; run++) {
    const page = await signedIn(browser, daemon.key)
    await page.goto(`${daemon.base}/console/#/campaigns`)
    drawn.push(await markTime(page, "console:campaigns-rendered"))
    evaluated.push(await markTime(page, "console:modules-evaluated"))
    await page.context().close()
  }
  return { drawn, evaluated }
}

/** Time from the end of the latest `GET /v2/contacts` answer to the page drawn. */
const contactRender = (page: Page) =>
  page.evaluate(() => {
    const answer = performance.getEntriesByType("resource").filter((e) => e.name.includes("/v2/contacts")).at(-1) as
      | { readonly responseEnd: number; readonly requestStart: number }
      | undefined
    const drawn = performance.getEntriesByName("console:contacts-rendered").at(-1)
    if (answer === undefined || drawn === undefined) throw new Error("no contact page answered and drawn")
    return { render: drawn.startTime - answer.responseEnd, api: answer.responseEnd - answer.requestStart }
  })

const contactPages = async (browser: Browser, daemon: Daemon, database: string) => {
  const million = await campaign(daemon, "million", false)
  const organizationId = psql(database, "SELECT id FROM organizations LIMIT 1").trim()
  psql(
    database,
    `INSERT INTO contacts (campaign_id, organization_id, phone_number, status, data, next_attempt_at)
     SELECT '${million.id}', '${organizationId}', '+1720' || (2000000 + g)::text,
            CASE WHEN g % 10 = 0 THEN 'COMPLETED' ELSE 'TRYING' END,
            jsonb_build_object('tier', CASE WHEN g % 10 = 0 THEN 'gold' ELSE 'basic' END, 'customer_id', 'c-' || g),
            now()
     FROM generate_series(1, 1000000) AS g`,
    "ANALYZE contacts"
  )
  const first: Array<number> = []
  const next: Array<number> = []
  const apiMs: Array<number> = []
  for (let run = 0; run < RUNS; run++) {
    const page = await signedIn(browser, daemon.key)
    await page.goto(`${daemon.base}/console/#/campaigns/${million.campaign_code}`)
    await page.waitForSelector("table.contacts-table tbody tr")
    await markTime(page, "console:contacts-rendered")
    const shown = await contactRender(page)
    first.push(shown.render)
    apiMs.push(shown.api)
    const before = await marks(page, "console:contacts-rendered")
    await page.click("nav[aria-label='Contact pages'] button:has-text('Next')")
    await page.waitForFunction(
      ([mark, count]) => performance.getEntriesByName(mark).length > count,
      ["console:contacts-rendered", before] as const
    )
    next.push((await contactRender(page)).render)
    await page.context().close()
  }
  return { first, next, apiMs }
}

const liveListen = async (browser: Browser, daemon: Daemon) => {
  // One call at a time, each long enough to be listened to: an agent with three questions.
  const calls = await campaign(daemon, "live", true, 1)
  const agent = await api(daemon, "POST", "/v2/agents", {
    name: "bench listener",
    persona: { agent_name: "Riley" },
    task: {
      objective: "Collect three answers",
      action_items: ["name", "company", "city"].map((key) => ({
        item_type: "field",
        key,
        field_type: "text",
        question: `What is your ${key}?`
      }))
    }
  })
  await api(daemon, "PUT", `/v2/campaigns/${calls.campaign_code}/agent`, { agent_id: agent.id })
  const numbers = Array.from({ length: Math.min(RUNS, 5) }, (_, i) => `+1202555019${i}`)
  await api(daemon, "POST", `/v2/campaigns/${calls.campaign_code}/contacts?accepted_terms_of_service=true`, {
    contacts: numbers.map((phone_number) => ({ phone_number }))
  })
  const times: Array<number> = []
  for (const number of numbers) {
    let callId: string | undefined
    while (callId === undefined) {
      const listed = await api(daemon, "GET", `/v1/conversations?to_number=${encodeURIComponent(number)}`)
      callId = listed.conversations[0]?.call_id
      if (callId === undefined) await new Promise((resolve) => setTimeout(resolve, 200))
    }
    // Answered once its media stream has started: listen from then on.
    while (!daemon.output().includes(`Media stream of call ${callId} started`)) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const page = await signedIn(browser, daemon.key)
    await page.goto(`${daemon.base}/console/#/live/${callId}`)
    await page.waitForSelector(".listener button.listen")
    const clicked = performance.now()
    await page.click(".listener button.listen")
    await page.waitForSelector(".listener:not([data-frames='0'])").catch(async (error: unknown) => {
      throw new Error(`${await page.textContent(".listener")} ${String(error)}`)
    })
    const shown = await page.textContent(".listener [role=status]")
    const seconds = Number(/first audio ([\d.]+) s/.exec(shown ?? "")?.[1])
    times.push(Number.isNaN(seconds) ? performance.now() - clicked : seconds * 1000)
    await page.context().close()
  }
  await api(daemon, "PATCH", `/v2/campaigns/${calls.campaign_code}`, { enabled: false })
  return times
}

/**
 * Runs every figure; answers the rows.
 *
 * @category constructors
 */
export const consoleFigures = async (): Promise<ReadonlyArray<ConsoleRow>> => {
  const size = firstLoad()
  const database = `bench_console_${randomBytes(4).toString("hex")}`
  psql("postgres", `CREATE DATABASE ${database}`)
  const daemon = await startDaemon(`postgres://postgres@127.0.0.1:5432/${database}`)
  const browser = await chromium.launch({
    executablePath: Chromium.executablePath,
    headless: true,
    args: [...Chromium.flags]
  })
  try {
    for (let i = 0; i < 10; i++) await campaign(daemon, `campaign ${i}`, false)
    const started = await interactive(browser, daemon)
    const pages = await contactPages(browser, daemon, database)
    const listen = await liveListen(browser, daemon)
    return [
      {
        figure: "Console first load, JavaScript and CSS gzipped (before the first page is drawn)",
        ours: `${(size.gzip / 1024).toFixed(0)} KB gzip (${(size.brotli / 1024).toFixed(0)} KB Brotli as served, ${
          (size.raw / 1024).toFixed(0)
        } KB raw; ${size.files.length} files)`,
        baseline: "–",
        ratio: "–",
        goal: "< 300 KB"
      },
      {
        figure: "Console interactive: navigation to the first campaign list drawn, cold cache, local daemon",
        ours: `${spread(started.drawn, "ms")}; of which the script loaded and evaluated: ${
          spread(started.evaluated, "ms")
        }`,
        baseline: "–",
        ratio: "–",
        goal: "< 1,000 ms"
      },
      {
        figure: "Console contact page at 1,000,000 contacts: API answer received to page drawn (first page; next page)",
        ours: `${spread(pages.first, "ms")}; next ${spread(pages.next, "ms")} (the API took ${
          spread(pages.apiMs, "ms")
        })`,
        baseline: "–",
        ratio: "–",
        goal: "< 200 ms"
      },
      {
        figure: "Console live listen: click to first audio (ticket, WebSocket, first frame, 120 ms buffer)",
        ours: spread(listen, "ms"),
        baseline: "–",
        ratio: "–",
        goal: "< 1,000 ms"
      }
    ]
  } finally {
    await browser.close()
    await daemon.stop()
    psql("postgres", `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await consoleFigures()
  console.log("| Figure | voice-agent | Baseline | Ratio | Goal |\n| - | - | - | - | - |")
  for (const row of rows) console.log(`| ${row.figure} | ${row.ours} | ${row.baseline} | ${row.ratio} | ${row.goal} |`)
}
