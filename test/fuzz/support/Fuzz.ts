/**
 * What the fuzz tests share: the run's seed and size (`FUZZ_SEED`, `FUZZ_RUNS`), a raw HTTP
 * client that puts exactly the bytes it is given on the wire (any request target, header or
 * body, chunked or not) and reads the answer with a deadline, the documented error shape, a
 * snapshot of every table of the database, and arbitraries for hostile text and JSON.
 *
 * @since 0.1.0
 */
import { assert } from "@effect/vitest"
import * as NodeServer from "@voice-agent/http/NodeServer"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import * as net from "node:net"

// ----------------------------------------------------------------------------- seed and size

/**
 * The seed of every property of the run: `FUZZ_SEED`, else a fixed one (failures reproduce).
 *
 * @category constructors
 */
export const seed: number = Number.parseInt(process.env["FUZZ_SEED"] ?? "20260823", 10)

/**
 * Runs of a property: `FUZZ_RUNS` (the long run), else the short default of the file.
 *
 * @category constructors
 */
export const runs = (short: number): number => {
  const given = Number.parseInt(process.env["FUZZ_RUNS"] ?? "", 10)
  return Number.isSafeInteger(given) && given > 0 ? given : short
}

/**
 * Whether this is a long run (`FUZZ_RUNS` set): the test timeouts grow with it.
 *
 * @category constructors
 */
export const long: boolean = process.env["FUZZ_RUNS"] !== undefined

/**
 * fast-check's parameters for a property of `short` runs by default.
 *
 * @category constructors
 */
export const parameters = (short: number): fc.Parameters<unknown> => ({
  seed,
  numRuns: runs(short),
  // The short run is bounded in time too: on a slow machine it runs fewer cases, never fails for it.
  ...(long ? {} : { interruptAfterTimeLimit: 60_000, markInterruptAsFailure: false })
})

/**
 * Runs an async property under `parameters(short)`, failing the test with fast-check's report
 * (the seed, the path and the shrunk counterexample).
 *
 * @category constructors
 */
export const check = <A>(
  short: number,
  arbitrary: fc.Arbitrary<A>,
  predicate: (value: A) => Promise<void>
): Effect.Effect<void> =>
  Effect.promise(() => fc.assert(fc.asyncProperty(arbitrary, predicate), parameters(short) as fc.Parameters<[A]>))

// ---------------------------------------------------------------------------- raw HTTP client

/**
 * A request as bytes on the wire.
 *
 * @category models
 */
export interface RawRequest {
  readonly method: string
  /** The request target as written (no encoding is applied). */
  readonly target: string
  /** In order; a name may repeat. `Host` and `Connection: close` are added unless present. */
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body?: Buffer | undefined
  /** Send the body with `Transfer-Encoding: chunked` (in chunks of this size) instead of a length. */
  readonly chunked?: number | undefined
  /** Send no `Content-Length` even with a body (the server must then read no body). */
  readonly noLength?: boolean | undefined
}

/**
 * An answer, or how the exchange ended without one.
 *
 * @category models
 */
export type RawReply =
  | {
    readonly _tag: "Reply"
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly text: string
    readonly ms: number
  }
  | { readonly _tag: "Timeout"; readonly ms: number }
  | { readonly _tag: "Closed"; readonly ms: number; readonly error: string | undefined }

const decodeChunked = (data: Buffer): Buffer => {
  const parts: Array<Buffer> = []
  let offset = 0
  for (;;) {
    const lineEnd = data.indexOf("\r\n", offset)
    if (lineEnd < 0) break
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString("latin1"), 16)
    if (!Number.isFinite(size) || size === 0) break
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size))
    offset = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts)
}

const parseReply = (data: Buffer, ms: number): RawReply | undefined => {
  const headEnd = data.indexOf("\r\n\r\n")
  if (headEnd < 0) return undefined
  const [statusLine, ...lines] = data.subarray(0, headEnd).toString("latin1").split("\r\n")
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1])
  if (!Number.isInteger(status)) return undefined
  // 1xx answers (100 Continue) come before the real one.
  if (status < 200) return parseReply(data.subarray(headEnd + 4), ms)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rest = data.subarray(headEnd + 4)
  const body = headers["transfer-encoding"]?.toLowerCase() === "chunked" ? decodeChunked(rest) : rest
  return { _tag: "Reply", status, headers, text: body.toString("utf8"), ms }
}

/**
 * Sends `request` to 127.0.0.1:`port` on a fresh connection and reads until the server closes
 * it (every request asks for `Connection: close`), at most `timeoutMs`. A server that answers
 * before the whole body is sent (413) is read as answered.
 *
 * @category constructors
 */
export const send = (port: number, request: RawRequest, timeoutMs = 10_000): Effect.Effect<RawReply> =>
  Effect.callback<RawReply>((resume) => {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const socket = net.connect({ port, host: "127.0.0.1" })
    const chunks: Array<Buffer> = []
    let done = false
    let error: string | undefined
    const finish = (reply: RawReply) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resume(Effect.succeed(reply))
    }
    const timer = setTimeout(() => {
      const answered = parseReply(Buffer.concat(chunks), elapsed())
      finish(answered ?? { _tag: "Timeout", ms: elapsed() })
    }, timeoutMs)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", (e) => {
      error = e.message
    })
    socket.on("close", () => {
      const data = Buffer.concat(chunks)
      finish(parseReply(data, elapsed()) ?? { _tag: "Closed", ms: elapsed(), error })
    })
    socket.on("connect", () => {
      const names = new Set(request.headers.map(([name]) => name.toLowerCase()))
      const lines = [`${request.method} ${request.target} HTTP/1.1`]
      if (!names.has("host")) lines.push(`Host: 127.0.0.1:${port}`)
      if (!names.has("connection")) lines.push("Connection: close")
      for (const [name, value] of request.headers) lines.push(`${name}: ${value}`)
      const body = request.body
      if (body !== undefined && request.chunked !== undefined) {
        lines.push("Transfer-Encoding: chunked")
      } else if (body !== undefined && !request.noLength && !names.has("content-length")) {
        lines.push(`Content-Length: ${body.length}`)
      }
      // The request line is bytes as given (a raw target is a latin1 view of its bytes); header
      // values are text, sent as UTF-8 (obs-text to the parser).
      const parts: Array<Buffer> = [
        Buffer.from(`${lines[0]}\r\n`, "latin1"),
        Buffer.from(`${lines.slice(1).join("\r\n")}\r\n\r\n`, "utf8")
      ]
      if (body !== undefined && request.chunked !== undefined) {
        const size = Math.max(1, request.chunked, Math.ceil(body.length / 64))
        for (let i = 0; i < body.length; i += size) {
          const part = body.subarray(i, i + size)
          parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n"))
        }
        parts.push(Buffer.from("0\r\n\r\n"))
      } else if (body !== undefined) {
        parts.push(body)
      }
      socket.write(Buffer.concat(parts))
    })
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      socket.destroy()
    })
  })

/**
 * A label of a request for failure messages (target and body cut short).
 *
 * @category constructors
 */
export const describeRequest = (request: RawRequest): string =>
  `${request.method} ${request.target.slice(0, 300)} ${JSON.stringify(request.headers).slice(0, 300)} ` +
  `body(${request.body?.length ?? "none"}${request.chunked === undefined ? "" : ", chunked"}): ` +
  `${request.body?.subarray(0, 300).toString("utf8") ?? ""}`

// ---------------------------------------------------------------------------- error shape

/**
 * Whether `reply` is the server's answer to a request Node's HTTP parser refused (NodeServer):
 * such a request never reaches the routes, so nothing of the app (a signature check, a handler)
 * ran for it.
 *
 * @category guards
 */
export const isParserAnswer = (reply: Extract<RawReply, { _tag: "Reply" }>): boolean => {
  try {
    const detail = (JSON.parse(reply.text) as { detail?: unknown }).detail
    return reply.status >= 400 && Object.values(NodeServer.details).some((known) => known === detail)
  } catch {
    return false
  }
}

/**
 * Asserts `reply` is an error answer of the documented shape (docs/HTTP_API.md, docs/DECISIONS.md): JSON with
 * exactly `detail`, a non-empty sentence; or, for 422, FastAPI's list of `{loc, msg, type}`.
 *
 * @category constructors
 */
export const assertErrorShape = (reply: Extract<RawReply, { _tag: "Reply" }>, label: string): void => {
  const where = `${label}\n=> ${reply.status} ${JSON.stringify(reply.headers)} ${reply.text.slice(0, 500)}`
  assert.match(reply.headers["content-type"] ?? "", /^application\/json/, `error without JSON: ${where}`)
  let body: any
  try {
    body = JSON.parse(reply.text)
  } catch {
    assert.fail(`error body is not JSON: ${where}`)
  }
  assert.deepStrictEqual(Object.keys(body ?? {}), ["detail"], `error body is not {detail}: ${where}`)
  if (reply.status === 422 && Array.isArray(body.detail)) {
    assert.isNotEmpty(body.detail, where)
    for (const item of body.detail) {
      assert.deepStrictEqual(Object.keys(item).sort(), ["loc", "msg", "type"], where)
      assert.isArray(item.loc, where)
      for (const part of item.loc) assert.include(["string", "number"], typeof part, where)
      assert.isString(item.msg, where)
      assert.isString(item.type, where)
    }
    return
  }
  assert.isString(body.detail, `detail is not a sentence: ${where}`)
  assert.isNotEmpty(body.detail.trim(), `empty detail: ${where}`)
}

// ---------------------------------------------------------------------------- stored data

/**
 * Every row of every table of the public schema, as one digest per table (row count and an
 * MD5 of the rows in order): equal snapshots mean nothing was written.
 *
 * @category constructors
 */
export const snapshot: Effect.Effect<Record<string, string>, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`
  const parts = tables.map(({ table_name }) =>
    `SELECT '${table_name}' AS t, count(*)::text || ':' || coalesce(md5(string_agg(x::text, E'\\n' ORDER BY x::text)), '') AS d FROM public."${table_name}" x`
  )
  const rows = yield* sql.unsafe<{ t: string; d: string }>(parts.join(" UNION ALL "))
  return Object.fromEntries(rows.map((row) => [row.t, row.d]))
}).pipe(Effect.orDie)

/**
 * The tables whose digest differs between two snapshots.
 *
 * @category constructors
 */
export const changedTables = (before: Record<string, string>, after: Record<string, string>): Array<string> =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((table) => before[table] !== after[table])

// ---------------------------------------------------------------------------- hostile input

/**
 * `text` with each control character (U+0000 to U+001F, U+007F) replaced by `replacement`.
 *
 * @category constructors
 */
export const withoutControls = (text: string, replacement: string): string =>
  Array.from(text, (c) => {
    const code = c.charCodeAt(0)
    return code < 0x20 || code === 0x7f ? replacement : c
  }).join("")

/**
 * Text that has broken servers: empty and blank, NUL and other controls, unpaired surrogates,
 * non-BMP and right-to-left characters, injection-shaped strings, long runs, numbers as text.
 *
 * @category arbitraries
 */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x\udfff",
      "\ufeff",
      "\u202e\u0644",
      "😀",
      "null",
      "true",
      "0",
      "-1",
      "1e309",
      "NaN",
      "9007199254740993",
      "'; DROP TABLE contacts; --",
      "%",
      "%00",
      "%ZZ",
      "../../etc/passwd",
      "\r\n",
      "{}",
      "[]",
      "__proto__",
      "constructor",
      "$where"
    ),
    weight: 4
  },
  { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 5_000 }).map((n) => "x".repeat(n)), weight: 1 }
)

/**
 * Any JSON value, nested a few levels, with nasty strings for keys and values.
 *
 * @category arbitraries
 */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -0, 1.5, -1, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308),
    nastyString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(nastyString, tie("value"), { maxKeys: 4 })
  )
})).value

/**
 * Nesting `depth` levels deep (arrays, objects or both), as JSON text.
 *
 * @category constructors
 */
export const nested = (depth: number, kind: "array" | "object" | "mixed"): string => {
  let open = ""
  let close = ""
  for (let i = 0; i < depth; i++) {
    const array = kind === "array" || (kind === "mixed" && i % 2 === 0)
    open += array ? "[" : "{\"a\":"
    close = (array ? "]" : "}") + close
  }
  return `${open}1${close}`
}

/**
 * A string percent-encoded in a hostile way: bytes escaped or raw, broken escapes, overlong
 * UTF-8, `+` for a space, encoded separators.
 *
 * @category arbitraries
 */
export const encodedComponent = (value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(
    value,
    fc.oneof(
      { arbitrary: fc.constant("encode" as const), weight: 6 },
      { arbitrary: fc.constantFrom("raw-safe", "broken", "overlong", "double", "plus"), weight: 4 }
    )
  ).map(
    ([text, how]) => {
      switch (how) {
        case "encode":
          return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "?"))
        case "raw-safe":
          // Raw bytes, except those that would end the request line.
          return Buffer.from(withoutControls(text.replace(/\s/g, "_"), "_"), "utf8").toString("latin1")
        case "broken":
          return `${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "?"))}%${text.length % 2 === 0 ? "Z" : ""}`
        case "overlong":
          return `%C0%AF${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "?"))}%E0%80%80%ED%A0%80`
        case "double":
          return encodeURIComponent(encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "?")))
        case "plus":
          return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "?")).replace(/%20/g, "+").replace(/%2F/g, "/")
      }
    }
  )
