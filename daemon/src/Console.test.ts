import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import * as Console from "./Console.ts"

/** A build directory as `npm run build` leaves it (or none, when `files` is empty). */
const build = (files: Record<string, string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "va-console-build-"))
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}

const served = (dir: string) =>
  HttpRouter.serve(Console.routes(dir), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest)
  )

const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(url, { headers }))
    return { status: response.status, headers: response.headers, body: new Uint8Array(yield* response.arrayBuffer) }
  })

const script = "console.log('the console')"

describe("Console routes", () => {
  it.effect("serve the build: hashed assets cached for a year, index.html revalidated, compressed copies", () => {
    const dir = build({
      "index.html": "<!doctype html><title>console</title>",
      "assets/index-abc123.js": script
    })
    fs.writeFileSync(path.join(dir, "assets/index-abc123.js.gz"), zlib.gzipSync(script))
    return Effect.gen(function*() {
      const index = yield* get("/console/")
      assert.strictEqual(index.status, 200)
      assert.strictEqual(index.headers["cache-control"], "no-cache")
      assert.include(index.headers["content-type"], "text/html")
      assert.include(index.headers["content-security-policy"], "default-src 'self'")
      const etag = index.headers["etag"]!
      assert.strictEqual((yield* get("/console/", { "if-none-match": etag })).status, 304)

      const asset = yield* get("/console/assets/index-abc123.js", { "accept-encoding": "gzip, deflate" })
      assert.strictEqual(asset.status, 200)
      assert.strictEqual(asset.headers["cache-control"], "public, max-age=31536000, immutable")
      assert.strictEqual(asset.headers["content-encoding"], "gzip")
      assert.strictEqual(asset.headers["vary"], "Accept-Encoding")
      // The test's client (fetch) decodes the gzip copy on the way in.
      assert.strictEqual(new TextDecoder().decode(asset.body), script)
      const plain = yield* get("/console/assets/index-abc123.js", { "accept-encoding": "identity" })
      assert.isUndefined(plain.headers["content-encoding"])
      assert.strictEqual(new TextDecoder().decode(plain.body), script)

      const missing = yield* get("/console/assets/none.js")
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(JSON.parse(new TextDecoder().decode(missing.body)), { detail: "Not Found" })
    }).pipe(Effect.provide(served(dir)), Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true }))))
  })

  it.effect("say to run npm run build when the console is not built, and serve each build made later", () => {
    const dir = build({})
    return Effect.gen(function*() {
      const page = yield* get("/console/", { accept: "text/html,application/xhtml+xml" })
      assert.strictEqual(page.status, 404)
      assert.include(new TextDecoder().decode(page.body), "Run <code>npm run build</code>")
      const json = yield* get("/console/")
      assert.strictEqual(json.status, 404)
      assert.include(JSON.parse(new TextDecoder().decode(json.body)).detail, "run npm run build")

      fs.writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>built</title>")
      const built = yield* get("/console/")
      assert.strictEqual(built.status, 200)
      assert.include(new TextDecoder().decode(built.body), "built")

      // A new build: another index.html (a later modification time) and its assets.
      fs.writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>rebuilt</title>")
      fs.utimesSync(path.join(dir, "index.html"), new Date(), new Date(Date.now() + 5000))
      fs.mkdirSync(path.join(dir, "assets"))
      fs.writeFileSync(path.join(dir, "assets/index-new.js"), script)
      assert.include(new TextDecoder().decode((yield* get("/console/")).body), "rebuilt")
      assert.strictEqual((yield* get("/console/assets/index-new.js")).status, 200)
    }).pipe(Effect.provide(served(dir)), Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true }))))
  })
})
