import { assert, describe, it } from "@effect/vitest"
import type { AttemptErrorType } from "@voice-agent/core/Webhook"
import * as WebhookFailure from "./WebhookFailure.ts"

/** An error as Node and undici raise them: a message and a `code`, maybe wrapped. */
const coded = (message: string, code: string) => Object.assign(new Error(message), { code })
const wrapped = (cause: unknown) => new TypeError("fetch failed", { cause })

describe("WebhookFailure.fromTransport", () => {
  it("names the failure from the code, with the error's own message", () => {
    const cases: ReadonlyArray<readonly [code: string, message: string, type: AttemptErrorType]> = [
      ["ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9", "connection_refused"],
      ["ENOTFOUND", "getaddrinfo ENOTFOUND hooks.example.invalid", "dns"],
      ["EAI_AGAIN", "getaddrinfo EAI_AGAIN hooks.example.com", "dns"],
      ["UND_ERR_SOCKET", "other side closed", "connection_closed"],
      ["ECONNRESET", "read ECONNRESET", "connection_closed"],
      ["UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error", "timeout"],
      ["EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.5:443", "network"],
      ["CERT_HAS_EXPIRED", "certificate has expired", "tls"],
      ["DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate", "tls"],
      ["ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames", "tls"]
    ]
    for (const [code, message, type] of cases) {
      assert.deepStrictEqual(WebhookFailure.fromTransport(coded(message, code)), { type, message }, code)
    }
  })

  it("reads the innermost cause that has a code, and shortens OpenSSL's messages", () => {
    const dns = coded("getaddrinfo ENOTFOUND hooks.example.invalid", "ENOTFOUND")
    assert.deepStrictEqual(WebhookFailure.fromTransport(wrapped(dns)), {
      type: "dns",
      message: "getaddrinfo ENOTFOUND hooks.example.invalid"
    })
    const ssl = coded(
      "407DC850947F0000:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:" +
        "../deps/openssl/openssl/ssl/record/methods/tlsany_meth.c:77:",
      "ERR_SSL_WRONG_VERSION_NUMBER"
    )
    assert.deepStrictEqual(WebhookFailure.fromTransport(ssl), { type: "tls", message: "SSL: wrong version number" })
    assert.deepStrictEqual(WebhookFailure.fromTransport(new Error("something odd")), {
      type: "network",
      message: "something odd"
    })
  })

  it("keeps messages short and falls back to the client's description", () => {
    const long = WebhookFailure.fromTransport(coded(`connect ECONNREFUSED ${"x".repeat(500)}`, "ECONNREFUSED"))
    assert.strictEqual(long.message.length, 200)
    assert.deepStrictEqual(WebhookFailure.fromTransport(undefined, "socket hang up"), {
      type: "network",
      message: "socket hang up"
    })
  })

  it("names timeouts and statuses", () => {
    assert.deepStrictEqual(WebhookFailure.timedOut(10_000), { type: "timeout", message: "no answer within 10 s" })
    assert.deepStrictEqual(WebhookFailure.httpStatus(503), { type: "http_status", message: "HTTP 503" })
  })
})
