/**
 * The web console in Debian's real headless Chromium, against a daemon on the simulated carrier,
 * through each flow as an operator goes through it: the admin pages (an organization, a key
 * shown once, a number, the DNC list, a webhook with its deliveries), an agent with typed
 * fields, a campaign made in the form (windows in its zone, the API's warning), a file with one
 * bad row refused before anything is sent, 25,000 contacts uploaded in batches, calls watched to
 * the end, a call played with its transcript moving the player, its replies' turn latency as
 * bars split into their stages and the campaign's p50 and p90, a contact's eligibility in
 * words, and a campaign deleted after a confirmation. Any error in the browser's console fails
 * the test; every page is photographed at 1280×800 and 375 px wide (test/console/screenshots/).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import type { Page } from "playwright-core"
import * as Daemon from "../support/Daemon.ts"
import * as WebhookReceiver from "../support/WebhookReceiver.ts"
import * as Browser from "./Browser.ts"

const adminToken = "console-admin-token"
const scope = Effect.runSync(Scope.make())
const inScope = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.runPromise(effect.pipe(Scope.provide(scope)))

let daemon: Daemon.RunningDaemon
let receiver: WebhookReceiver.Receiver
let browser: Browser.Browser
let page: Page
/** State the flows hand on to each other. */
const state: { apiKey?: string; orgId?: string; agentName?: string; bulkCode?: string; callsCode?: string } = {}

const files = fs.mkdtempSync(path.join(os.tmpdir(), "va-console-files-"))

/** A CSV of `rows` distinct valid numbers, a `plan` column going into each contact's data. */
const csv = (name: string, rows: number): string => {
  const lines = ["phone_number,plan"]
  for (let i = 0; i < rows; i++) lines.push(`+1303${2_000_000 + i},${i % 2 === 0 ? "gold" : "basic"}`)
  const file = path.join(files, name)
  fs.writeFileSync(file, lines.join("\n") + "\n")
  return file
}

const api = async (
  method: string,
  url: string,
  token: string,
  body?: unknown
): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${daemon.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return {
    status: response.status,
    body: response.headers.get("content-type")?.includes("json") ? await response.json() : await response.arrayBuffer()
  }
}

/** Status and headers as sent (node:http: fetch would decode the body and may drop the encoding). */
const headersOf = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    http.get(url, { headers }, (response) => {
      response.resume()
      resolve({ status: response.statusCode ?? 0, headers: response.headers })
    }).on("error", reject)
  })

const go = async (hash: string) => {
  await page.goto(`${daemon.url}/console/#${hash}`)
}

const screenshot = async (name: string) => {
  const overflowing = await Browser.shoot(page, name)
  assert.deepStrictEqual(overflowing, [], `${name}: the page is wider than the window`)
}

const campaignForm = async (name: string, concurrency: number) => {
  await go("/campaigns/new")
  await page.fill("input[name=name]", name)
  await page.check("input[name=origin][value='+12025550100']")
  await page.fill("input[name=timezone]", "UTC")
  // Seven windows, every day all day: open whenever the test runs.
  await page.click("text=Add a window")
  await page.click("text=Add a window")
  await page.selectOption("select[name=day-5]", "5")
  await page.selectOption("select[name=day-6]", "6")
  for (let i = 0; i < 7; i++) {
    await page.fill(`input[name=start-${i}]`, "00:00")
    await page.fill(`input[name=end-${i}]`, "24:00")
  }
  await page.fill("input[name=max_concurrency]", String(concurrency))
  await page.waitForSelector(".zone-clock [data-open=true]")
  await page.click("button:has-text('Create campaign')")
  await page.waitForURL(/#\/campaigns\/gcmp-/)
  return decodeURIComponent(page.url().split("#/campaigns/")[1]!)
}

// Each flow may wait on calls and the browser: on a loaded machine well past vitest's 30 s.
describe.skipIf(Browser.unavailable !== undefined)("the web console in Chromium", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    receiver = await inScope(
      WebhookReceiver.make((_path, previous) => (previous === 0 ? 500 : 200))
    )
    daemon = await inScope(
      Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
        VOICE_AGENT_ADMIN_TOKEN: adminToken,
        VOICE_AGENT_WEBHOOK_RETRY_SCHEDULE: "1s,1s"
      })
    )
    browser = await Browser.launch()
    page = browser.page
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(files, { recursive: true, force: true })
  }, 60_000)

  it("serves the console at /console/ and redirects / there", async () => {
    const root = await fetch(`${daemon.url}/`, { redirect: "manual" })
    assert.strictEqual(root.status, 302)
    assert.strictEqual(root.headers.get("location"), "/console/")
    const index = await fetch(`${daemon.url}/console/`)
    assert.strictEqual(index.headers.get("cache-control"), "no-cache")
    const html = await index.text()
    const asset = /src="\/console\/(assets\/[^"]+\.js)"/.exec(html)?.[1]
    assert.isDefined(asset)
    const script = await headersOf(`${daemon.url}/console/${asset}`, { "accept-encoding": "gzip" })
    assert.strictEqual(script.status, 200)
    assert.strictEqual(script.headers["cache-control"], "public, max-age=31536000, immutable")
    assert.strictEqual(script.headers["content-encoding"], "gzip")
    assert.include(String(script.headers["content-type"]), "text/javascript")
  })

  it("admin pages: an organization, a key shown once, a number, the DNC list, a webhook", async () => {
    await go("/admin")
    await screenshot("admin-sign-in")
    await page.fill("input[name=adminToken]", adminToken)
    await page.click("button:has-text('Continue')")
    await page.fill("input[name=organization-name]", "Acme")
    await page.click("button:has-text('Create organization')")
    await page.waitForURL(/#\/admin\/[0-9a-f-]{36}$/)
    state.orgId = page.url().split("#/admin/")[1]!
    await page.click("button:has-text('Issue an API key')")
    state.apiKey = (await page.textContent("code.shown-once"))!.trim()
    assert.match(state.apiKey, /^va_/)
    await page.waitForSelector("table.keys tbody tr")
    await screenshot("admin-keys")

    await go(`/admin/${state.orgId}/numbers`)
    await page.fill("input[name=phone_number]", "(202) 555-0100")
    await page.click("button:has-text('Add number')")
    await page.waitForSelector("table.numbers td:has-text('+12025550100')")
    await screenshot("admin-numbers")

    await go(`/admin/${state.orgId}/dnc`)
    await page.fill("textarea[name=dnc-numbers]", "+12025550177\n(202) 555-0178")
    await page.click("button:has-text('Add to the list')")
    await page.waitForSelector("table.dnc td:has-text('+12025550178')")
    await screenshot("admin-dnc")

    await go(`/admin/${state.orgId}/webhooks`)
    await page.fill("input[name=webhook-url]", `${receiver.url}/hooks`)
    await page.check("input[name=event][value='call.ended']")
    await page.click("button:has-text('Add endpoint')")
    assert.match((await page.textContent("code.shown-once"))!, /^whsec_/)
    await page.waitForSelector(".endpoints code:has-text('/hooks')")
    await screenshot("admin-webhooks")

    await go("/admin")
    await page.waitForSelector("table.organizations td:has-text('Acme')")
    await screenshot("admin-organizations")
  })

  it("signs in with the key and creates an agent whose checklist has typed fields", async () => {
    await go("/campaigns")
    await screenshot("sign-in")
    await page.fill("input[name=apiKey]", state.apiKey!)
    await page.click("button:has-text('Continue')")
    await page.waitForSelector("text=No campaigns yet")
    await screenshot("campaigns-empty")

    await go("/agents/new")
    state.agentName = "Renewals agent"
    await page.fill("input[name=name]", state.agentName)
    await page.fill("input[name=persona-agent_name]", "Riley")
    await page.fill("input[name=persona-organization_name]", "Acme")
    await page.fill("textarea[name=objective]", "Confirm the renewal details")
    await page.fill("input[name=item-0-key]", "full_name")
    await page.fill("input[name=item-0-question]", "What is your full name?")
    await page.click("button:has-text('Add an item')")
    await page.fill("input[name=item-1-key]", "seats")
    await page.selectOption("select[name=item-1-field_type]", "integer")
    await page.fill("input[name=item-1-question]", "How many seats do you need?")
    await page.click("button:has-text('Add an item')")
    await page.fill("input[name=item-2-key]", "plan")
    await page.selectOption("select[name=item-2-field_type]", "multiple_choice")
    await page.fill("input[name=item-2-choices]", "gold, basic")
    await page.fill("input[name=item-2-question]", "Which plan?")
    await screenshot("agent-new")
    await page.click("button:has-text('Create agent')")
    await page.waitForURL(/#\/agents\/agt-/)
    await page.waitForSelector("h2:has-text('Attached to')")
    const agentId = page.url().split("#/agents/")[1]!
    const stored = await api("GET", `/v2/agents/${agentId}`, state.apiKey!)
    assert.deepStrictEqual(
      stored.body.task.action_items.map((i: { key: string; field_type: string }) => [i.key, i.field_type]),
      [["full_name", "text"], ["seats", "integer"], ["plan", "multiple_choice"]]
    )
    assert.deepStrictEqual(stored.body.task.action_items[2].choices, ["gold", "basic"])
  })

  it("creates a campaign with windows in its zone, shows the API's warning, pauses and resumes it", async () => {
    state.bulkCode = await campaignForm("Bulk renewals", 1)
    // 00:00-24:00 is outside 08:00-21:00: the API's warning, word for word.
    await page.waitForSelector(".notice.warning:has-text('Calling windows outside the recommended range')")
    await screenshot("campaign")
    await page.click("button:has-text('Pause')")
    await page.waitForSelector("h1 .badge.paused")
    assert.isFalse((await api("GET", `/v2/campaigns/${state.bulkCode}`, state.apiKey!)).body.enabled)
    await page.click("button:has-text('Resume')")
    await page.waitForSelector("button:has-text('Pause')")
    assert.isTrue((await api("GET", `/v2/campaigns/${state.bulkCode}`, state.apiKey!)).body.enabled)
    // Paused again for the uploads: 25,000 contacts are not to be dialed by this test.
    await page.click("button:has-text('Pause')")
    await page.waitForSelector("h1 .badge.paused")
    await page.click("button:has-text('Edit')")
    await page.waitForSelector("form.campaign-form")
    await screenshot("campaign-edit")
    await page.click("button:has-text('Close the editor')")
  })

  it("refuses a file with one bad row before anything is sent, naming the row", async () => {
    const lines = ["phone_number,plan", "+13032000001,gold", "555-not-a-number,basic", "+13032000003,gold"]
    const file = path.join(files, "one-bad-row.csv")
    fs.writeFileSync(file, lines.join("\n") + "\n")
    const before = browser.requests.length
    await page.setInputFiles("input[name=file]", file)
    await page.check("input[name=accepted_terms_of_service]")
    await page.click("form.upload button:has-text('Upload')")
    await page.waitForSelector("table.refused tbody tr")
    const row = await page.$$eval("table.refused tbody tr td", (cells) => cells.map((c) => c.textContent?.trim()))
    assert.strictEqual(row[0], "2")
    assert.strictEqual(row[1], "555-not-a-number")
    assert.include(row[2], "invalid_phone_number")
    assert.include(await page.textContent("form.upload [role=alert]"), "Nothing was sent")
    const uploads = browser.requests.slice(before).filter((r) => r.method === "POST" && r.url.includes("/contacts"))
    assert.deepStrictEqual(uploads, [])
    await screenshot("upload-refused")
  })

  it("uploads 25,000 contacts in batches of 10,000: the progress bar reaches 100%, the counts show 25,000", async () => {
    const before = browser.requests.length
    await page.setInputFiles("input[name=file]", csv("contacts-25000.csv", 25_000))
    await page.click("form.upload button:has-text('Upload')")
    await page.waitForSelector("progress.sent[data-percent='100']", { timeout: 180_000 })
    await page.waitForSelector("text=25,000 contacts created in 3 batches")
    const uploads = browser.requests.slice(before).filter((r) => r.method === "POST" && r.url.includes("/contacts"))
    assert.strictEqual(uploads.length, 3)
    await page.waitForSelector("dd[data-status=TRYING]:has-text('25,000')", { timeout: 30_000 })
    await screenshot("upload-done")
    await page.waitForSelector("table.contacts-table tbody tr")
    await screenshot("contacts")
  })

  it("filters contacts by data with keyset pages and explains one's eligibility in words", async () => {
    await page.fill("input[name=data]", "plan=gold")
    await page.click("button:has-text('Apply filters')")
    await page.waitForSelector("nav[aria-label='Contact pages'] span:has-text('Page 1')")
    await page.waitForFunction(() =>
      [...document.querySelectorAll("table.contacts-table tbody tr")].length === 100 &&
      [...document.querySelectorAll("table.contacts-table tbody tr td:nth-child(3)")].every((td) =>
        td.textContent?.includes("\"gold\"")
      )
    )
    const firstPage = await page.$$eval(
      "table.contacts-table tbody tr td:first-child",
      (c) => c.map((x) => x.textContent)
    )
    await page.click("nav[aria-label='Contact pages'] button:has-text('Next')")
    await page.waitForSelector("nav[aria-label='Contact pages'] span:has-text('Page 2')")
    // The next page drawn: its rows, not the first page's nor an empty table while it loads.
    await page.waitForFunction((first) => {
      const cells = [...document.querySelectorAll("table.contacts-table tbody tr td:first-child")]
      return cells.length === 100 && cells[0]?.textContent !== first
    }, firstPage[0])
    const secondPage = await page.$$eval(
      "table.contacts-table tbody tr td:first-child",
      (c) => c.map((x) => x.textContent)
    )
    assert.strictEqual(secondPage.length, 100)
    assert.deepStrictEqual(secondPage.filter((n) => firstPage.includes(n)), [])
    await page.click("table.contacts-table tbody tr:first-child button:has-text('Why?')")
    const words = await page.textContent("table.contacts-table tbody tr:first-child .eligibility")
    assert.strictEqual(words, "the campaign is paused: it is called once the campaign resumes")
    await screenshot("contacts-filtered")
  })

  it("attaches the agent to a new campaign, whose calls are watched to their end", async () => {
    state.callsCode = await campaignForm("Calls", 4)
    await go("/agents")
    await page.click(`a:has-text('${state.agentName}')`)
    await page.waitForSelector("select[name=attach-campaign]")
    await screenshot("agent")
    await page.selectOption("select[name=attach-campaign]", state.callsCode)
    await page.click("button:has-text('Attach to campaign')")
    await page.waitForSelector(".attached-campaigns a:has-text('Calls')")
    const attached = await api("GET", `/v2/campaigns/${state.callsCode}/agent`, state.apiKey!)
    assert.strictEqual(attached.body.agent_id, page.url().split("#/agents/")[1])
    await screenshot("agents")
    await go("/agents")
    await page.waitForSelector(`table.agents a:has-text('${state.agentName}')`)
    await screenshot("agent-list")

    // Two people who answer, one busy line, and one who never hangs up (the agent ends it).
    await go(`/campaigns/${state.callsCode}`)
    const file = path.join(files, "calls.csv")
    fs.writeFileSync(
      file,
      "phone_number,name\n+12025550101,Ada\n+12025550102,Grace\n+12025550150,Busy\n+12025550191,Long\n"
    )
    await page.setInputFiles("input[name=file]", file)
    await page.check("input[name=accepted_terms_of_service]")
    await page.click("form.upload button:has-text('Upload')")
    await page.waitForSelector("text=4 contacts created in 1 batch")

    await go("/calls")
    await page.waitForSelector("table.calls .badge.live", { timeout: 60_000 })
    await screenshot("calls-in-progress")

    // Live: the long call, heard in the page through a listen ticket.
    const long = await page.waitForSelector("table.calls tr:has(td:text-is('+12025550191')) .badge.live", {
      timeout: 60_000
    })
    await long.click()
    await page.waitForURL(/#\/live\//)
    await page.click(".listener button.listen")
    await page.waitForFunction(() => Number(document.querySelector(".listener")?.getAttribute("data-frames")) > 50)
    await page.waitForFunction(() => Number(document.querySelector(".listener")?.getAttribute("data-level")) > 0.1)
    assert.include(await page.textContent(".listener [role=status]"), "first audio")
    const ticketed = browser.requests.find((r) => r.url.includes("/listen?") && r.url.includes("ticket="))
    assert.isDefined(ticketed)
    assert.notInclude(ticketed?.url, state.apiKey!)
    await screenshot("live")
    await page.waitForSelector(".listener[data-state=Ended]", { timeout: 120_000 })

    await go("/calls")
    // Every call ended: four rows, none in progress, each with its reason.
    await page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll("table.calls tbody tr")]
        return rows.length === 4 && rows.every((row) => row.querySelector(".badge.live") === null)
      },
      undefined,
      { timeout: 120_000 }
    )
    const outcomes = await page.$$eval(
      "table.calls tbody tr",
      (rows) => rows.map((row) => [row.children[3]?.textContent, row.children[6]?.textContent])
    )
    const byNumber = Object.fromEntries(outcomes.map(([to, outcome]) => [to, outcome]))
    assert.strictEqual(byNumber["+12025550150"], "busy")
    assert.strictEqual(byNumber["+12025550191"], "bot-hangup")
    for (const answered of ["+12025550101", "+12025550102"]) {
      assert.oneOf(byNumber[answered], ["user-hangup", "bot-hangup"], answered)
    }
    await screenshot("calls")
    await go(`/campaigns/${state.callsCode}`)
    await page.waitForSelector("dd[data-status=COMPLETED]:has-text('3')")
  })

  it("plays a call: the player lasts as long as the recording, a transcript turn moves it there", async () => {
    const list = await api("GET", "/v1/conversations?to_number=%2B12025550101", state.apiKey!)
    const call = list.body.conversations[0]
    const wav = await api("GET", `/v1/conversations/${call.call_id}/channels/mixed/recording`, state.apiKey!)
    const seconds = ((wav.body as ArrayBuffer).byteLength - 44) / 2 / 8000
    const turns = (await api("GET", `/v1/conversations/${call.call_id}/transcript`, state.apiKey!)).body
    assert.isAbove(turns.length, 2)

    await go(`/calls/${call.call_id}`)
    await page.waitForSelector(".player button.play:not([disabled])")
    await page.waitForSelector("table.fields td:has-text('full_name')")
    await page.click(".player button.play")
    await page.waitForSelector(".player[data-playing=true]")
    const duration = Number(await page.getAttribute(".player", "data-duration"))
    assert.approximately(duration, seconds, 0.02)
    await page.click(".player button.play")

    const turn = turns[2]
    await page.click(`.transcript button[data-offset-ms='${turn.offset_ms}']`)
    await page.waitForFunction(
      (ms) => Math.abs(Number(document.querySelector(".player")?.getAttribute("data-time")) * 1000 - ms) < 50,
      turn.offset_ms
    )
    assert.strictEqual(
      await page.getAttribute(`.transcript button[data-offset-ms='${turn.offset_ms}']`, "aria-current"),
      "true"
    )
    const downloads = await page.$$eval(".downloads a", (links) => links.map((a) => a.getAttribute("download")))
    assert.deepStrictEqual(downloads, ["mixed", "agent", "remote"].map((c) => `${call.call_id}-${c}.wav`))
    // The webhook events of the call: its call.ended, refused once (500), delivered on the retry.
    await page.waitForSelector("table.call-events td code:has-text('call.ended')")
    await page.waitForSelector("table.call-events ol.attempts li[data-attempt='2']", { timeout: 30_000 })
    await page.locator(".player").scrollIntoViewIfNeeded()
    await screenshot("call")
  })

  it("shows each reply's turn latency as a bar split into its stages, and the campaign's p50 and p90", async () => {
    const list = await api("GET", "/v1/conversations?to_number=%2B12025550101", state.apiKey!)
    const call = list.body.conversations[0]
    const latency = (await api("GET", `/v1/conversations/${call.call_id}/latency`, state.apiKey!)).body
    assert.isAbove(latency.turns.length, 1, JSON.stringify(latency))
    const shown = (n: number) => `${n.toLocaleString("en-US")} ms`

    await go(`/calls/${call.call_id}`)
    await page.waitForSelector("ol.latency-bars li")
    const bars = await page.$$eval("ol.latency-bars li", (items) =>
      items.map((li) => ({
        voiceToVoice: Number(li.getAttribute("data-voice-to-voice-ms")),
        text: li.querySelector(".num")?.textContent,
        width: li.querySelector(".bar")!.getBoundingClientRect().width,
        track: li.querySelector(".track")!.getBoundingClientRect().width,
        segments: [...li.querySelectorAll(".segment")].map((segment) => ({
          stage: segment.getAttribute("data-stage"),
          ms: Number(segment.getAttribute("data-ms")),
          width: segment.getBoundingClientRect().width
        }))
      })))
    assert.strictEqual(bars.length, latency.turns.length)
    const names = { stt: "stt_ms", llm: "llm_first_token_ms", tts: "tts_first_byte_ms", engine: "engine_ms" } as const
    const spans = bars.map((bar) => Math.max(bar.voiceToVoice, bar.segments.reduce((sum, s) => sum + s.ms, 0)))
    for (const [i, bar] of bars.entries()) {
      const turn = latency.turns[i]
      assert.strictEqual(bar.voiceToVoice, turn.voice_to_voice_ms, `reply ${i}`)
      assert.strictEqual(bar.text, shown(turn.voice_to_voice_ms), `reply ${i}`)
      // Each stage the API measured is a part of the bar, with its figure; nothing else is named.
      const stages = Object.fromEntries(
        bar.segments.filter((s) => s.stage !== "unmeasured").map((s) => [names[s.stage as keyof typeof names], s.ms])
      )
      assert.deepStrictEqual(stages, turn.stages, `reply ${i}`)
      assert.isAbove(Object.keys(stages).length, 0, `reply ${i}: measured by step`)
      // Drawn to scale: the bar against the longest, each part against its bar.
      assert.approximately(bar.width, bar.track * (spans[i]! / Math.max(...spans)), 1.5, `reply ${i}`)
      for (const segment of bar.segments) {
        assert.approximately(segment.width, bar.width * (segment.ms / spans[i]!), 1.5, `reply ${i} ${segment.stage}`)
      }
    }
    const figure = (name: string) => page.textContent(`dl.latency-summary dd[data-figure=${name}]`)
    assert.strictEqual(await figure("count"), String(latency.summary.count))
    assert.strictEqual(await figure("p50"), shown(latency.summary.p50_ms))
    assert.strictEqual(await figure("p90"), shown(latency.summary.p90_ms))
    assert.strictEqual(await figure("max"), shown(latency.summary.max_ms))
    // A bar plays from the end of the person's speech it answers.
    await page.waitForSelector(".player button.play:not([disabled])")
    await page.click("ol.latency-bars li:nth-child(2) button")
    await page.waitForFunction(
      (ms) => Math.abs(Number(document.querySelector(".player")?.getAttribute("data-time")) * 1000 - ms) < 50,
      latency.turns[1].user_stopped_ms
    )
    await page.locator("ol.latency-bars").scrollIntoViewIfNeeded()
    await screenshot("call-latency")

    const campaign = (await api("GET", `/v2/campaigns/${state.callsCode}/latency`, state.apiKey!)).body
    // The three answered calls' replies (the busy line has none).
    assert.strictEqual(campaign.calls, 3, JSON.stringify(campaign))
    await go(`/campaigns/${state.callsCode}`)
    await page.waitForSelector("dl[aria-label='Campaign turn latency'] dd[data-figure=p50]")
    const campaignFigure = (name: string) =>
      page.textContent(`dl[aria-label='Campaign turn latency'] dd[data-figure=${name}]`)
    assert.strictEqual(await campaignFigure("p50"), shown(campaign.summary.p50_ms))
    assert.strictEqual(await campaignFigure("p90"), shown(campaign.summary.p90_ms))
    assert.include(
      await page.textContent("dl[aria-label='Campaign turn latency'] + p"),
      `over ${campaign.summary.count} replies in 3 calls`
    )
    await screenshot("campaign-latency")
  })

  it("shows the webhook deliveries with their attempts in the admin pages", async () => {
    // The receiver refuses each event's first attempt (500) and takes the second.
    await inScope(receiver.waitFor((receptions) => receptions.filter((r) => r.status === 200).length >= 3))
    await go(`/admin/${state.orgId}/webhooks`)
    await page.click("button:has-text('Deliveries')")
    await page.waitForSelector("table.deliveries td:has-text('call.ended')")
    await page.waitForFunction(() =>
      [...document.querySelectorAll("table.deliveries tbody tr")].some((row) =>
        row.textContent?.includes("delivered") && row.children[2]?.textContent === "2"
      )
    )
    await screenshot("admin-deliveries")
  })

  it("deletes a campaign after a confirmation", async () => {
    await go(`/campaigns/${state.bulkCode}`)
    await page.click("h1 ~ .actions button:has-text('Delete')")
    await page.waitForSelector("dialog.confirm[open]")
    await screenshot("campaign-delete")
    await page.click("dialog.confirm button:has-text('Delete campaign')")
    await page.waitForURL(/#\/campaigns$/)
    await page.waitForSelector("table.campaigns")
    assert.strictEqual(await page.$$eval("table.campaigns tbody tr", (rows) => rows.length), 1)
    assert.strictEqual((await api("GET", `/v2/campaigns/${state.bulkCode}`, state.apiKey!)).status, 404)
    await screenshot("campaigns")
    await go("/messages")
    await page.waitForSelector("text=No message received")
    await screenshot("messages")
  })

  it("left nothing in the browser's console", () => {
    assert.deepStrictEqual(browser.errors, [])
  })
})
