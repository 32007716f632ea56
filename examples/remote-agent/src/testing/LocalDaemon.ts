/**
 * For the examples' tests: a real `voice-agent serve` child process on an ephemeral port, with
 * its data in memory, the simulated carrier (the default) and the admin API on; and an
 * organization with an API key and one number, made through the admin API as an operator would.
 *
 * Synchronization is on the daemon's output, never on time: `start` resolves on its ready line
 * and fails at once, with everything it printed, if it exits first.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createRequire } from "node:module"
import { createInterface } from "node:readline"

/** The daemon's executable (`daemon/src/bin.ts`), found through the `voice-agent` package. */
const bin = createRequire(import.meta.url).resolve("voice-agent/bin")

export interface Organization {
  readonly id: string
  readonly apiKey: string
  /** Its number, `+12025550100`. */
  readonly number: string
}

export interface LocalDaemon {
  /** `http://127.0.0.1:<port>/`. */
  readonly baseUrl: string
  /** A POST to the admin API; rejects unless the answer is 2xx. */
  readonly admin: (path: string, body: unknown) => Promise<Record<string, unknown>>
  /** A request with an API key; rejects unless the answer is 2xx. */
  readonly api: (apiKey: string, method: string, path: string, body?: unknown) => Promise<unknown>
  /**
   * `GET v1/conversations/{callId}` once the daemon has recorded the call's end (it may do so
   * just after the agent heard of it); rejects after 15 s.
   */
  readonly endedConversation: (apiKey: string, callId: string) => Promise<Record<string, unknown>>
  /** A new organization with an API key and the number `+12025550100`. */
  readonly organization: (name: string) => Promise<Organization>
  /** Standard output and error so far (for failure messages). */
  readonly output: () => string
  /** SIGTERM, then the exit code. */
  readonly stop: () => Promise<number | null>
}

const json = async (method: string, url: string, token: string, body: unknown): Promise<unknown> => {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`)
  return text === "" ? undefined : JSON.parse(text)
}

export const start = async (): Promise<LocalDaemon> => {
  const adminToken = randomBytes(16).toString("hex")
  const env: NodeJS.ProcessEnv = { ...process.env, VOICE_AGENT_ADMIN_TOKEN: adminToken }
  for (const name of ["DATABASE_URL", "LOG_FORMAT", "LOG_LEVEL", "VOICE_AGENT_CARRIER"]) delete env[name]
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--data-dir", ":memory:"], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<string> = []
  createInterface({ input: child.stderr }).on("line", (line) => lines.push(line))
  const baseUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line)
      const ready = /ready on (http:\/\/\S+)/.exec(line)
      if (ready !== null) resolve(`${ready[1]!}/`)
    })
    child.once(
      "exit",
      (code, signal) =>
        reject(new Error(`voice-agent serve exited (${code ?? signal}) before it was ready:\n${lines.join("\n")}`))
    )
  })
  const admin = async (adminPath: string, body: unknown) =>
    await json("POST", new URL(`admin/v1/${adminPath}`, baseUrl).href, adminToken, body) as Record<string, unknown>
  return {
    baseUrl,
    admin,
    api: (apiKey, method, apiPath, body) => json(method, new URL(apiPath, baseUrl).href, apiKey, body),
    endedConversation: async (apiKey, callId) => {
      const url = new URL(`v1/conversations/${callId}`, baseUrl).href
      for (const deadline = Date.now() + 15_000;;) {
        const conversation = await json("GET", url, apiKey, undefined) as Record<string, unknown>
        if (conversation["termination_reason"] !== null) return conversation
        if (Date.now() > deadline) throw new Error(`call ${callId} has not ended: ${JSON.stringify(conversation)}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    organization: async (name) => {
      const { id } = await admin("organizations", { name }) as { id: string }
      const { api_key } = await admin(`organizations/${id}/api-keys`, {}) as { api_key: string }
      const number = "+12025550100"
      await admin(`organizations/${id}/phone-numbers`, { phone_number: number })
      return { id, apiKey: api_key, number }
    },
    output: () => lines.join("\n"),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
        child.once("exit", (code) => resolve(code))
        child.kill("SIGTERM")
      })
  }
}
