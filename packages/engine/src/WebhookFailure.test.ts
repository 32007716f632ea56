import { assert, describe, it } from "@effect/vitest"
import * as WebhookFailure from "./WebhookFailure.ts"

/** An error as Node and undici raise them: a message and a `code`, maybe wrapped. */
const coded = (message: string, code: string) => Object.assign(new Error(message), { code })
const wrapped = (cause: unknown) => new TypeError("fetch failed", { cause })

describe("WebhookFailure.fromTransport", () => {
  it("names the failure from the innermost code, with that error's own message", () => {
    const cases: ReadonlyArray<readonly [unknown, WebhookFailure.Failure]> = [
      [coded("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED"), {
        type: "connection_refused",
        message: "connect ECONNREFUSED 127.0.0.1:9"
      }],
      [wrapped(coded("getaddrinfo ENOTFOUND hooks.example.invalid", "ENOTFOUND")), {
        type: "dns",
        message: "getaddrinfo ENOTFOUND hooks.example.invalid"
      }],
      [coded("getaddrinfo EAI_AGAIN hooks.example.com", "EAI_AGAIN"), {
        type: "dns",
        message: "getaddrinfo EAI_AGAIN hooks.example.com"
      }],
      [coded("other side closed", "UND_ERR_SOCKET"), { type: "connection_closed", message: "other side closed" }],
      [coded("read ECONNRESET", "ECONNRESET"), { type: "connection_closed", message: "read ECONNRESET" }],
      [coded("Connect Timeout Error", "UND_ERR_CONNECT_TIMEOUT"), {
        type: "timeout",
        message: "Connect Timeout Error"
      }],
      [coded("connect EHOSTUNREACH 10.0.0.5:443", "EHOSTUNREACH"), {
        type: "network",
        message: "connect EHOSTUNREACH 10.0.0.5:443"
      }],
      [coded("certificate has expired", "CERT_HAS_EXPIRED"), { type: "tls", message: "certificate has expired" }],
      [coded("self-signed certificate", "DEPTH_ZERO_SELF_SIGNED_CERT"), {
        type: "tls",
        message: "self-signed certificate"
      }],
      [
        coded(
          "407DC850947F0000:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:" +
            "../deps/openssl/openssl/ssl/record/methods/tlsany_meth.c:77:",
          "ERR_SSL_WRONG_VERSION_NUMBER"
        ),
        { type: "tls", message: "SSL: wrong version number" }
      ],
      [new Error("something odd"), { type: "network", message: "something odd" }]
    ]
    for (const [error, expected] of cases) {
      assert.deepStrictEqual(WebhookFailure.fromTransport(error), expected, String(error))
    }
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
