/**
 * Where the server is and how to authenticate, resolved once from options and the environment.
 *
 * - Base URL: `baseUrl`, else `VOICE_AGENT_BASE_URL`, else `GUAVA_BASE_URL`, else
 *   `http://127.0.0.1:8080/` (a local `voice-agent serve`). Paths are resolved against it, so a
 *   base with a path (`https://host/voice/`) works; a missing trailing slash is added. WebSocket
 *   URLs are the same with `http` → `ws`, `https` → `wss`.
 * - API key: `apiKey`, else `VOICE_AGENT_API_KEY`, else `GUAVA_API_KEY`; none is a `ConfigError`.
 * - Headers on every request and WebSocket upgrade: `Authorization: Bearer <key>`,
 *   `x-guava-platform` (`os.type()`: Linux, Darwin, Windows_NT), `x-guava-runtime: node`,
 *   `x-guava-runtime-version` (Node's version), `x-guava-sdk: voice-agent-typescript`,
 *   `x-guava-sdk-version`, then any extra `headers` given.
 *
 * @since 0.1.0
 */
import { type as osType } from "node:os"
import { ConfigError } from "./Errors.ts"
import { SDK_NAME, SDK_VERSION } from "./Version.ts"

export const DEFAULT_BASE_URL = "http://127.0.0.1:8080/"

export interface ConnectionOptions {
  /** The server's root URL; see the module comment for the fallbacks. */
  readonly baseUrl?: string
  /** The organization's API key; see the module comment for the fallbacks. */
  readonly apiKey?: string
  /** Extra headers for every request and upgrade (not secret: they may be logged). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface Connection {
  /** The resolved base URL, with a trailing slash. */
  readonly baseUrl: string
  /** The headers of every request and upgrade, `authorization` included. */
  readonly headers: Readonly<Record<string, string>>
  /** An HTTP URL: `path` (no leading slash, may carry a query) resolved against the base. */
  readonly httpUrl: (path: string) => URL
  /** A WebSocket URL: `httpUrl(path)` with `ws:` / `wss:`. */
  readonly wsUrl: (path: string) => URL
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim()

/**
 * Resolves the connection. Throws `ConfigError` when there is no API key or the base URL is not
 * an absolute `http:` / `https:` URL.
 */
export const resolveConnection = (
  options: ConnectionOptions = {},
  env: NodeJS.ProcessEnv = process.env
): Connection => {
  const rawBase = nonEmpty(options.baseUrl) ?? nonEmpty(env["VOICE_AGENT_BASE_URL"]) ??
    nonEmpty(env["GUAVA_BASE_URL"]) ?? DEFAULT_BASE_URL
  let base: URL
  try {
    base = new URL(rawBase.endsWith("/") ? rawBase : `${rawBase}/`)
  } catch {
    throw new ConfigError(`The base URL ${JSON.stringify(rawBase)} is not an absolute URL`)
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new ConfigError(`The base URL ${JSON.stringify(rawBase)} must start with http:// or https://`)
  }
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env["VOICE_AGENT_API_KEY"]) ?? nonEmpty(env["GUAVA_API_KEY"])
  if (apiKey === undefined) {
    throw new ConfigError(
      "No API key: pass apiKey, or set VOICE_AGENT_API_KEY (or GUAVA_API_KEY) to the organization's API key"
    )
  }
  const headers: Record<string, string> = {
    authorization: `Bearer ${apiKey}`,
    "x-guava-platform": osType(),
    "x-guava-runtime": "node",
    "x-guava-runtime-version": process.versions.node,
    "x-guava-sdk": SDK_NAME,
    "x-guava-sdk-version": SDK_VERSION,
    ...options.headers
  }
  const baseUrl = base.href
  const httpUrl = (path: string): URL => new URL(path.replace(/^\/+/, ""), baseUrl)
  const wsUrl = (path: string): URL => {
    const url = httpUrl(path)
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:"
    return url
  }
  return { baseUrl, headers, httpUrl, wsUrl }
}
