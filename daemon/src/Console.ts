/**
 * The operators' web console (docs/CONSOLE.md): the static files that
 * `@voice-agent/console` builds (`npm run build`) served at `/console/` (`GET /` redirects there:
 * HttpApp's `rootLayer`). Nothing the console loads comes from another host: its scripts, styles and fonts (the
 * system's) are these files, and its Content-Security-Policy allows only this origin.
 *
 * - Files under `assets/` have content hashes in their names: `Cache-Control: public,
 *   max-age=31536000, immutable`. Everything else (index.html) is `no-cache` with an ETag, so a
 *   new build is picked up on the next load.
 * - The build writes `.br` and `.gz` copies beside each text file; the one the client accepts
 *   is served (`Vary: Accept-Encoding`), so nothing is compressed at request time.
 * - The files are read into memory on the first request (a build is about 1 MB with its
 *   compressed copies), and again when index.html changes (a new build while the daemon runs).
 *   Before the console is built, `/console/` answers 404 with a sentence saying to run
 *   `npm run build`.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Where the console is served.
 *
 * @category constructors
 */
export const basePath = "/console/"

/**
 * The built console of the workspace package `@voice-agent/console`.
 *
 * @category constructors
 */
export const defaultDirectory = (): string =>
  path.join(path.dirname(fileURLToPath(import.meta.resolve("@voice-agent/console/package.json"))), "dist")

interface StaticFile {
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly brotli: Uint8Array | undefined
  readonly contentType: string
  readonly etag: string
  readonly immutable: boolean
}

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".wasm": "application/wasm",
  ".txt": "text/plain; charset=utf-8"
}

const securityHeaders = {
  "content-security-policy": [
    "default-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    // wavesurfer.js styles its shadow DOM with a <style> element.
    "style-src 'self' 'unsafe-inline'",
    "worker-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

const readOptional = (file: string): Uint8Array | undefined => fs.existsSync(file) ? fs.readFileSync(file) : undefined

/**
 * Every file of a console build, by its path under `/console/`; undefined when there is no build.
 *
 * @category constructors
 */
export const load = (directory: string): ReadonlyMap<string, StaticFile> | undefined => {
  if (!fs.existsSync(path.join(directory, "index.html"))) return undefined
  const files = new Map<string, StaticFile>()
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (!/\.(?:gz|br)$/.test(entry.name)) {
        const body = fs.readFileSync(file)
        const relative = path.relative(directory, file).split(path.sep).join("/")
        files.set(relative, {
          body,
          gzip: readOptional(`${file}.gz`),
          brotli: readOptional(`${file}.br`),
          contentType: contentTypes[path.extname(file)] ?? "application/octet-stream",
          etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
          immutable: relative.startsWith("assets/")
        })
      }
    }
  }
  walk(directory)
  return files
}

const notBuilt = (accept: string) =>
  accept.includes("text/html")
    ? HttpServerResponse.text(
      "<!doctype html><meta charset=utf-8><title>voice-agent console</title>" +
        "<p>The web console is not built. Run <code>npm run build</code> in the voice-agent checkout, " +
        "then reload this page.</p>",
      { status: 404, contentType: "text/html; charset=utf-8" }
    )
    : HttpServerResponse.jsonUnsafe(
      { detail: "The web console is not built: run npm run build in the voice-agent checkout, then reload" },
      { status: 404 }
    )

const serveFile = (file: StaticFile, request: HttpServerRequest.HttpServerRequest) => {
  const cacheControl = file.immutable ? "public, max-age=31536000, immutable" : "no-cache"
  const common = { ...securityHeaders, "cache-control": cacheControl, etag: file.etag, vary: "Accept-Encoding" }
  if (request.headers["if-none-match"] === file.etag) {
    return HttpServerResponse.empty({ status: 304, headers: common })
  }
  const accepted = (request.headers["accept-encoding"] ?? "").toLowerCase()
  const [body, encoding] = file.brotli !== undefined && /\bbr\b/.test(accepted)
    ? [file.brotli, "br"]
    : file.gzip !== undefined && /\bgzip\b/.test(accepted)
    ? [file.gzip, "gzip"]
    : [file.body, undefined]
  return HttpServerResponse.uint8Array(body, {
    contentType: file.contentType,
    headers: encoding === undefined ? common : { ...common, "content-encoding": encoding }
  })
}

/**
 * The console's routes over the build in `directory`.
 *
 * @category layers
 */
export const routes = (directory: string = defaultDirectory()) => {
  // Read again when index.html changes (a new build while the daemon runs): one stat a request.
  const index = path.join(directory, "index.html")
  let files: ReadonlyMap<string, StaticFile> | undefined
  let builtAt: number | undefined
  const current = () => {
    const stamp = fs.statSync(index, { throwIfNoEntry: false })?.mtimeMs
    if (stamp !== builtAt) {
      files = stamp === undefined ? undefined : load(directory)
      builtAt = stamp
    }
    return files
  }
  return HttpRouter.add(
    "GET",
    `${basePath}*`,
    Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const build = current()
      if (build === undefined) return notBuilt(request.headers["accept"] ?? "")
      const relative = decodeURIComponent(new URL(request.url, "http://console").pathname).slice(basePath.length)
      const file = build.get(relative === "" ? "index.html" : relative)
      return file === undefined
        ? HttpServerResponse.jsonUnsafe({ detail: "Not Found" }, { status: 404 })
        : serveFile(file, request)
    })
  )
}
