/**
 * Debian's real headless Chromium for the console's tests, driven by playwright-core through
 * `executablePath` (no browser is downloaded): a fresh profile per run, the launch flags that
 * keep it off the network, every console error and page error recorded (a test fails on any),
 * and screenshots of a page at 1280×800 and at 375 px wide into `test/console/screenshots/`
 * (git-ignored).
 *
 * Outside CI, when no Chromium is installed, the tests skip with a notice (as the PostgreSQL
 * tests do without a server); with `CI=true` a missing browser fails the run (support/Chromium).
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { BrowserContext, Page } from "playwright-core"
import { chromium } from "playwright-core"
import * as Chromium from "../support/Chromium.ts"

const built = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../packages/console/dist/index.html")

/**
 * Why the browser tests cannot run here, or undefined when they can: no Chromium (Chromium.ts),
 * or a console not built (`npm run build`; CI builds before it tests). Outside CI either skips
 * with a notice; in CI either fails.
 *
 * @category constructors
 */
export const unavailable = Chromium.unavailable() ?? (() => {
  if (fs.existsSync(built)) return undefined
  const reason = "the console is not built (npm run build)"
  if (process.env["CI"] === "true") throw new Error(`${reason}; in CI the browser tests never skip`)
  console.warn(`Skipping the console's browser tests: ${reason}`)
  return reason
})()

/**
 * @category models
 */
export interface Browser {
  readonly page: Page
  /** Console errors and uncaught page errors so far. */
  readonly errors: Array<string>
  /** Every URL the page requested (WebSockets as method `WEBSOCKET`). */
  readonly requests: Array<{ readonly method: string; readonly url: string }>
  readonly close: () => Promise<void>
}

/**
 * A fresh profile (`--user-data-dir`, through playwright's persistent context) and one page.
 *
 * @category constructors
 */
export const launch = async (): Promise<Browser> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "va-chromium-"))
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: Chromium.executablePath,
    headless: true,
    args: [...Chromium.flags],
    viewport: { width: 1280, height: 800 }
  })
  const page = context.pages()[0] ?? (await context.newPage())
  const errors: Array<string> = []
  const requests: Array<{ method: string; url: string }> = []
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`)
  })
  page.on("pageerror", (error) => errors.push(`page: ${error.message}`))
  page.on("request", (request) => requests.push({ method: request.method(), url: request.url() }))
  page.on("websocket", (socket) => requests.push({ method: "WEBSOCKET", url: socket.url() }))
  return {
    page,
    errors,
    requests,
    close: async () => {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    }
  }
}

const screenshots = path.join(path.dirname(fileURLToPath(import.meta.url)), "screenshots")

/**
 * The widths every page is shown at.
 *
 * @category constructors
 */
export const widths = [{ width: 1280, height: 800 }, { width: 375, height: 812 }] as const

/**
 * Screenshots of the page as it is now at both widths (`<name>-1280.png`, `<name>-375.png`, and
 * their first screen `<name>-<width>-screen.png`),
 * each checked for a page wider than its window (tables scroll inside their frame instead).
 * Answers the widths at which the page overflowed.
 *
 * @category constructors
 */
export const shoot = async (page: Page, name: string): Promise<ReadonlyArray<number>> => {
  fs.mkdirSync(screenshots, { recursive: true })
  const overflowing: Array<number> = []
  for (const size of widths) {
    await page.setViewportSize(size)
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    const wider = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)
    if (wider) overflowing.push(size.width)
    await page.screenshot({ path: path.join(screenshots, `${name}-${size.width}.png`), fullPage: true })
    // The first screen too, as a person sees it (the README shows two of these).
    await page.screenshot({ path: path.join(screenshots, `${name}-${size.width}-screen.png`) })
  }
  await page.setViewportSize(widths[0])
  return overflowing
}
