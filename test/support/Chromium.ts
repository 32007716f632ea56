/**
 * Debian's Chromium for the console's tests and benchmark: where it is, whether it is there, and
 * the launch flags that keep it off the network. playwright-core drives it through
 * `executablePath`; no browser is downloaded.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"

/**
 * Where Chromium is: `CHROMIUM_PATH`, or Debian's package.
 *
 * @category constructors
 */
export const executablePath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

/**
 * Why the browser tests cannot run here, or undefined when they can. Outside CI a missing
 * browser skips them with a notice (as the PostgreSQL tests do without a server); with
 * `CI=true` it is an error, never a skip.
 *
 * @category constructors
 */
export const unavailable = (): string | undefined => {
  if (fs.existsSync(executablePath)) return undefined
  const reason = `no Chromium at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`
  if (process.env["CI"] === "true") throw new Error(`${reason}; in CI the browser tests never skip`)
  console.warn(`Skipping the console's browser tests: ${reason}`)
  return reason
}

/**
 * The flags of every launch: headless, no sandbox (root in CI), no GPU, and nothing that would
 * reach the network on its own (QUIC, background services, component updates, sync).
 *
 * @category constructors
 */
export const flags: ReadonlyArray<string> = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
