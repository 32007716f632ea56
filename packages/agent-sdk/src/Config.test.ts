import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { DEFAULT_BASE_URL, resolveConnection } from "./Config.ts"
import { ConfigError } from "./Errors.ts"
import { SDK_VERSION } from "./Version.ts"

describe("resolveConnection", () => {
  it("prefers options, then VOICE_AGENT_*, then GUAVA_*", () => {
    const env = {
      VOICE_AGENT_BASE_URL: "http://voice:8080",
      GUAVA_BASE_URL: "https://guava.example/",
      VOICE_AGENT_API_KEY: "va-env",
      GUAVA_API_KEY: "gva-env"
    }
    expect(resolveConnection({ baseUrl: "https://x.example/api", apiKey: "k" }, env)).toMatchObject({
      baseUrl: "https://x.example/api/",
      headers: { authorization: "Bearer k" }
    })
    expect(resolveConnection({}, env)).toMatchObject({
      baseUrl: "http://voice:8080/",
      headers: { authorization: "Bearer va-env" }
    })
    expect(resolveConnection({}, { GUAVA_BASE_URL: "https://guava.example/", GUAVA_API_KEY: "gva-env" })).toMatchObject(
      { baseUrl: "https://guava.example/", headers: { authorization: "Bearer gva-env" } }
    )
    expect(resolveConnection({}, { GUAVA_API_KEY: "gva-env" }).baseUrl).toBe(DEFAULT_BASE_URL)
  })

  it("sends the SDK headers and builds http and ws URLs under the base's path", () => {
    const connection = resolveConnection({
      baseUrl: "https://x.example/voice",
      apiKey: "k",
      headers: { "x-team": "a" }
    }, {})
    expect(connection.headers).toMatchObject({
      "x-guava-sdk": "voice-agent-typescript",
      "x-guava-sdk-version": SDK_VERSION,
      "x-guava-runtime": "node",
      "x-team": "a"
    })
    expect(connection.httpUrl("v2/create-outbound").href).toBe("https://x.example/voice/v2/create-outbound")
    expect(connection.wsUrl("v2/connect-call/abc").href).toBe("wss://x.example/voice/v2/connect-call/abc")
    expect(resolveConnection({ baseUrl: "http://h:1", apiKey: "k" }, {}).wsUrl("v1/x").protocol).toBe("ws:")
  })

  it("refuses a missing key and a non-http base URL", () => {
    expect(() => resolveConnection({}, {})).toThrow(ConfigError)
    expect(() => resolveConnection({ baseUrl: "ftp://h/", apiKey: "k" }, {})).toThrow(ConfigError)
    expect(() => resolveConnection({ baseUrl: "not a url", apiKey: "k" }, {})).toThrow(ConfigError)
  })

  it("SDK_VERSION is package.json's version", () => {
    const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string
    }
    expect(SDK_VERSION).toBe(packageJson.version)
  })
})
