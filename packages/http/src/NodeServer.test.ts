import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { AddressInfo } from "node:net"
import * as net from "node:net"
import { createServer } from "./NodeServer.ts"

const server = createServer()
server.on("request", (request, response) => {
  const body = `ok ${request.url}`
  // /slow is answered later, as the app answers what needs the database.
  setTimeout(
    () => response.writeHead(200, { "content-type": "text/plain", "content-length": body.length }).end(body),
    request.url === "/slow" ? 100 : 0
  )
})
let port = 0
beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve())))
beforeAll(() => void (port = (server.address() as AddressInfo).port))
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Sends raw bytes; answers everything the server wrote until it closed (or 2 s passed). */
const exchange = (raw: string): Promise<string> =>
  new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(raw))
    let received = ""
    socket.on("data", (chunk) => received += chunk.toString("latin1"))
    const timer = setTimeout(() => socket.destroy(), 2_000)
    socket.on("close", () => {
      clearTimeout(timer)
      resolve(received)
    })
    socket.on("error", () => undefined)
  })

/** The status and JSON body of the (last) answer in `text`. */
const lastAnswer = (text: string) => {
  const at = text.lastIndexOf("HTTP/1.1 ")
  const [head, body] = text.slice(at).split("\r\n\r\n") as [string, string]
  return { status: Number(head.slice(9, 12)), head: head.toLowerCase(), body: JSON.parse(body) as unknown }
}

describe("NodeServer.createServer", () => {
  it("answers a request its parser refuses 400 with {detail}, and closes the connection", async () => {
    for (
      const raw of [
        "GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "NOT-HTTP\r\n\r\n"
      ]
    ) {
      const answer = lastAnswer(await exchange(raw))
      assert.strictEqual(answer.status, 400, raw)
      assert.deepStrictEqual(answer.body, { detail: "Malformed HTTP request" }, raw)
      assert.include(answer.head, "content-type: application/json")
      assert.include(answer.head, "connection: close")
    }
  })

  it("answers headers over Node's limit 431 with {detail}", async () => {
    const answer = lastAnswer(await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`))
    assert.strictEqual(answer.status, 431)
    assert.deepStrictEqual(answer.body, { detail: "Request header fields too large" })
  })

  it("answers an Expect other than 100-continue 417 with {detail}", async () => {
    const answer = lastAnswer(
      await exchange("GET / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n")
    )
    assert.strictEqual(answer.status, 417)
    assert.deepStrictEqual(answer.body, { detail: "Only 'Expect: 100-continue' is supported" })
  })

  it("serves what comes before a refused request on the same connection, then refuses it", async () => {
    const text = await exchange("GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok \/firstHTTP\/1\.1 400 /)
    assert.deepStrictEqual(lastAnswer(text).body, { detail: "Malformed HTTP request" })
  })

  it("answers a refused request pipelined behind a slow one after it, leaving its answer whole", async () => {
    const text = await exchange("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok \/slowHTTP\/1\.1 400 /)
    assert.deepStrictEqual(lastAnswer(text).body, { detail: "Malformed HTTP request" })
  })

  it("a well-formed request is untouched", async () => {
    const text = await exchange("GET /fine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/)
    assert.isTrue(text.endsWith("ok /fine"))
  })
})
