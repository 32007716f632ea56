/**
 * Malformed requests derived from an OpenAPI document: every operation it describes (plus the
 * routes it does not: the document itself, `/docs`, the OpenAI-compatible proxy), each with
 * path ids that exist, belong to someone else or are garbage; documented query parameters with
 * hostile values and encodings, unknown and repeated ones; credentials right, wrong or absent;
 * content types; and bodies that are almost valid (a value of the request schema with one
 * field broken), of the wrong JSON type, not JSON, deeply nested, large, or sent chunked.
 *
 * @since 0.1.0
 */
import * as fc from "fast-check"
import type { RawRequest } from "./Fuzz.ts"
import { anyJson, encodedComponent, nastyString, nested, withoutControls } from "./Fuzz.ts"

/** A JSON Schema object of the document, read field by field. */
type Schema = { readonly [key: string]: any }

/**
 * One operation: its method and path template, its parameters, whether it takes a JSON body
 * (and the body's schema), and who may call it.
 *
 * @category models
 */
export interface Operation {
  readonly method: string
  readonly path: string
  readonly pathParams: ReadonlyArray<string>
  readonly queryParams: ReadonlyArray<string>
  readonly headerParams: ReadonlyArray<string>
  readonly body: Schema | undefined
  readonly security: "bearer" | "admin" | "none"
}

/**
 * The operations of an OpenAPI 3.1 document, plus the routes served outside it.
 *
 * @category constructors
 */
export const operations = (document: any): ReadonlyArray<Operation> => {
  const found: Array<Operation> = []
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const parameters: Array<any> = operation.parameters ?? []
      const named = (where: string) => parameters.filter((p) => p.in === where).map((p) => p.name as string)
      const security = JSON.stringify(operation.security ?? [])
      found.push({
        method: method.toUpperCase(),
        path,
        pathParams: named("path"),
        queryParams: named("query"),
        headerParams: named("header"),
        body: operation.requestBody?.content?.["application/json"]?.schema,
        security: security.includes("adminToken") ? "admin" : security.includes("bearer") ? "bearer" : "none"
      })
    }
  }
  // Served beside the documented API.
  const extra = (method: string, path: string, security: Operation["security"]): Operation => ({
    method,
    path,
    pathParams: [],
    queryParams: [],
    headerParams: [],
    body: undefined,
    security
  })
  found.push(
    extra("GET", "/openapi.json", "none"),
    extra("GET", "/docs", "none"),
    extra("POST", "/openai/v1/chat/completions", "bearer"),
    extra("GET", "/openai/v1/models", "bearer")
  )
  return found
}

/**
 * What the fuzzer knows of the world: real ids per path parameter name (the organization's
 * own, and another organization's), the credentials, and phone numbers that exist.
 *
 * @category models
 */
export interface World {
  readonly ids: Readonly<Record<string, ReadonlyArray<string>>>
  readonly key: string
  readonly otherKey: string
  readonly adminToken: string
  readonly numbers: ReadonlyArray<string>
}

const resolve = (schema: Schema | undefined, document: any): Schema => {
  let current = schema ?? {}
  for (let i = 0; i < 10 && typeof current["$ref"] === "string"; i++) {
    current = document.components.schemas[current["$ref"].split("/").pop()!] ?? {}
  }
  return current
}

/** Plausible strings for a field, from its name: the value a real client would send. */
const plausibleString = (name: string, world: World): fc.Arbitrary<string> => {
  const lower = name.toLowerCase()
  if (lower.includes("number") || lower.includes("phone")) {
    return fc.oneof(
      fc.constantFrom(...world.numbers),
      fc.constantFrom("+12025550123", "202-555-0199", "+442071838750", "+1", "+999999999999999999", "12")
    )
  }
  if (lower.includes("date") || lower.endsWith("_at") || lower === "start" || lower.includes("after")) {
    return fc.constantFrom("2026-01-01", "2026-02-30", "2026-12-31T23:59:59Z", "0000-01-01", "9999-12-31", "yesterday")
  }
  if (lower.includes("time")) return fc.constantFrom("09:00", "24:00", "9am", "5:30PM", "25:00", "00:60", "noon")
  if (lower === "day") return fc.constantFrom("monday", "Sunday", "funday")
  if (lower.includes("timezone")) return fc.constantFrom("UTC", "America/New_York", "Mars/Olympus", "+05:00")
  if (lower.includes("url")) {
    return fc.constantFrom("https://example.com/hook", "http://127.0.0.1:1/x", "ftp://x", "not a url", "https://")
  }
  if (lower.includes("status")) return fc.constantFrom("TRYING", "COMPLETED", "FAILED", "trying", "delivered")
  if (lower.includes("code")) return fc.constantFrom(...(world.ids["campaign_code"] ?? ["gcmp-x"]))
  return fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("x", "hello", "sms", "agent", "remote"))
}

/**
 * Values that mostly conform to `schema` (names guide the strings), to be broken in one place.
 *
 * @category arbitraries
 */
export const conforming = (schema: Schema | undefined, document: any, world: World, name = "", depth = 0): fc.Arbitrary<
  unknown
> => {
  const s = resolve(schema, document)
  if (depth > 6) return fc.constant(null)
  if (Array.isArray(s["anyOf"]) || Array.isArray(s["oneOf"])) {
    const options: Array<Schema> = s["anyOf"] ?? s["oneOf"]
    return fc.oneof(...options.map((option) => conforming(option, document, world, name, depth + 1)))
  }
  if (Array.isArray(s["enum"])) return fc.constantFrom(...s["enum"])
  if ("const" in s) return fc.constant(s["const"])
  const type = Array.isArray(s["type"]) ? s["type"][0] : s["type"]
  switch (type) {
    case "object": {
      const properties: Record<string, Schema> = s["properties"] ?? {}
      const required = new Set<string>(s["required"] ?? [])
      const entries = Object.entries(properties)
      if (entries.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 })
      return fc.record(
        Object.fromEntries(entries.map(([key, value]) => [key, conforming(value, document, world, key, depth + 1)])),
        { requiredKeys: entries.map(([key]) => key).filter((key) => required.has(key)) }
      )
    }
    case "array":
      return fc.array(conforming(s["items"], document, world, name, depth + 1), {
        minLength: Math.min(s["minItems"] ?? 0, 3),
        maxLength: Math.min(s["maxItems"] ?? 3, 3)
      })
    case "integer": {
      const min = Math.max(s["minimum"] ?? -5, -5)
      return fc.integer({ min, max: Math.max(min, Math.min(s["maximum"] ?? 100, 100)) })
    }
    case "number":
      return fc.double({ min: -10, max: 1000, noNaN: true })
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "string":
      return plausibleString(name, world)
    default:
      return anyJson
  }
}

/** A value of the wrong JSON type for anything. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 1e300, "", "1", [], {}, [null], { "": "" }),
  nastyString,
  anyJson
)

/** Replaces the value at a random path of `value` (picked by `pick`) with `replacement`. */
const replaceAt = (value: unknown, pick: number, replacement: unknown): unknown => {
  const paths: Array<Array<string | number>> = [[]]
  const walk = (v: unknown, path: Array<string | number>) => {
    if (paths.length > 200) return
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        paths.push([...path, i])
        walk(item, [...path, i])
      })
    } else if (typeof v === "object" && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        paths.push([...path, k])
        walk(item, [...path, k])
      }
    }
  }
  walk(value, [])
  const path = paths[pick % paths.length]!
  if (path.length === 0) return replacement
  const copy = structuredClone(value) as any
  let target = copy
  for (const part of path.slice(0, -1)) target = target[part]
  target[path[path.length - 1]!] = replacement
  return copy
}

/** A JSON text with a broken spot: cut short, a stray byte, a lone escape, comments, NaN. */
const brokenJson = (text: string): fc.Arbitrary<string> =>
  fc.tuple(fc.nat(), fc.constantFrom("cut", "stray", "escape", "comment", "nan", "trailing", "bom", "dupe")).map(
    ([at, how]) => {
      const i = text.length === 0 ? 0 : at % text.length
      switch (how) {
        case "cut":
          return text.slice(0, i)
        case "stray":
          return `${text.slice(0, i)}\u0001${text.slice(i)}`
        case "escape":
          return `${text.slice(0, i)}"\\x"${text.slice(i)}`
        case "comment":
          return `/* c */${text}`
        case "nan":
          return text.replace(/\d+/, "NaN")
        case "trailing":
          return `${text},`
        case "bom":
          return `\ufeff${text}`
        case "dupe":
          return text.startsWith("{") && text.length > 2 ? `{"a":1,"a":[],${text.slice(1)}` : `${text}${text}`
      }
    }
  )

/**
 * A body for `operation`: bytes, and whether to send them chunked.
 *
 * @category arbitraries
 */
export const body = (
  operation: Operation,
  document: any,
  world: World
): fc.Arbitrary<
  { readonly bytes: Buffer | undefined; readonly chunked: number | undefined; readonly kind: string }
> => {
  const valid = conforming(operation.body, document, world)
  const text = (kind: string, t: fc.Arbitrary<string>) =>
    t.map((s) => ({ kind, bytes: Buffer.from(s, "utf8") as Buffer | undefined }))
  const kinds = fc.oneof(
    { arbitrary: text("valid", valid.map((v) => JSON.stringify(v) ?? "null")), weight: 3 },
    {
      arbitrary: text(
        "one-field-broken",
        fc.tuple(valid, fc.nat(), wrongType).map(([v, pick, bad]) => JSON.stringify(replaceAt(v, pick, bad)) ?? "")
      ),
      weight: 8
    },
    {
      arbitrary: text(
        "unknown-fields",
        fc.tuple(valid, fc.dictionary(nastyString, anyJson, { minKeys: 1, maxKeys: 3 })).map(([v, extra]) =>
          JSON.stringify(typeof v === "object" && v !== null && !Array.isArray(v) ? { ...extra, ...v } : extra)
        )
      ),
      weight: 2
    },
    { arbitrary: text("broken-json", valid.chain((v) => brokenJson(JSON.stringify(v) ?? ""))), weight: 4 },
    { arbitrary: text("wrong-type", wrongType.map((v) => JSON.stringify(v) ?? "null")), weight: 3 },
    { arbitrary: text("any-json", anyJson.map((v) => JSON.stringify(v) ?? "null")), weight: 2 },
    {
      arbitrary: text(
        "deep",
        fc.tuple(fc.integer({ min: 20, max: 20_000 }), fc.constantFrom("array", "object", "mixed" as const), valid).map(
          (
            [depth, kind, v]
          ) => JSON.stringify(replaceAt(v, depth, "__DEEP__")).replace("\"__DEEP__\"", nested(depth, kind))
        )
      ),
      weight: 2
    },
    {
      arbitrary: text(
        "large-field",
        fc.tuple(valid, fc.nat(), fc.integer({ min: 100_000, max: 1_000_000 })).map(([v, pick, size]) =>
          JSON.stringify(replaceAt(v, pick, "x".repeat(size)))
        )
      ),
      weight: 1
    },
    {
      arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ kind: "binary", bytes: Buffer.from(b) as Buffer })),
      weight: 1
    },
    { arbitrary: fc.constant({ kind: "none", bytes: undefined }), weight: 2 },
    { arbitrary: fc.constant({ kind: "empty", bytes: Buffer.alloc(0) }), weight: 1 }
  )
  return fc.tuple(kinds, fc.option(fc.integer({ min: 1, max: 4096 }), { freq: 8 })).map(([b, chunked]) => ({
    ...b,
    chunked: b.bytes === undefined ? undefined : chunked ?? undefined
  }))
}

/** Values for a query parameter, from its name, as a real client or an attacker would send them. */
const queryValue = (name: string, world: World): fc.Arbitrary<string> => {
  const lower = name.toLowerCase()
  const plausible = lower === "limit"
    ? fc.constantFrom("1", "100", "101", "0", "-1", "1.5", "1e3", "99999999999999999999", "", "ten")
    : lower === "data"
    ? fc.oneof(
      fc.constantFrom("{\"a\":1}", "{}", "[]", "null", "{\"a\":{\"b\":[1]}}", "{bad"),
      anyJson.map((v) => JSON.stringify(v) ?? "")
    )
    : lower === "after"
    ? fc.oneof(fc.base64String({ maxLength: 60 }), fc.constantFrom("", "eyJ9", "x".repeat(5000)))
    : lower.includes("terms") || lower.includes("duplicates")
    ? fc.constantFrom("true", "false", "True", "1", "yes", "")
    : lower === "direction"
    ? fc.constantFrom("inbound", "outbound", "sideways")
    : lower === "modality"
    ? fc.constantFrom("sms", "voice", "")
    : lower.includes("sdk")
    ? fc.constantFrom("python", "0.1.0", "99.99.99", "x")
    : lower.includes("campaign_id")
    ? fc.constantFrom(...(world.ids["campaign_id"] ?? ["x"]), "00000000-0000-0000-0000-000000000000")
    : plausibleString(name, world)
  return encodedComponent(fc.oneof({ arbitrary: plausible, weight: 3 }, { arbitrary: nastyString, weight: 2 }))
}

/** A path id: one that exists (ours or another organization's), or garbage. */
const pathValue = (name: string, world: World): fc.Arbitrary<string> => {
  const known = world.ids[name] ?? []
  const real = known.length > 0 ? fc.constantFrom(...known).map(encodeURIComponent) : fc.constant("x")
  return fc.oneof(
    { arbitrary: real, weight: 4 },
    { arbitrary: encodedComponent(nastyString), weight: 3 },
    {
      arbitrary: fc.constantFrom(
        "",
        ".",
        "..",
        "%2e%2e",
        "%2F",
        "a%2Fb",
        "00000000-0000-0000-0000-000000000000",
        "-1",
        "0",
        "99999999999999999999999",
        "1e3",
        "agt-00000000000000000000",
        "gcmp-00000000",
        "x".repeat(6000)
      ),
      weight: 2
    }
  )
}

/** A header value as it can go on the wire (no line breaks); mostly without control characters too. */
const headerText = (value: string, keepControls = false) =>
  keepControls ? value.replace(/[\r\n]/g, " ") : withoutControls(value, " ")

/**
 * A malformed request to `operation`, with what is needed to judge its answer.
 *
 * @category models
 */
export interface Case {
  readonly operation: Operation
  readonly request: RawRequest
  readonly bodyKind: string
}

/**
 * Requests to `operation`.
 *
 * @category arbitraries
 */
export const request = (operation: Operation, document: any, world: World): fc.Arbitrary<Case> => {
  const path = fc.tuple(...operation.pathParams.map((name) => pathValue(name, world))).map((values) =>
    operation.pathParams.reduce((p, name, i) => p.replace(`{${name}}`, values[i]!), operation.path)
  )
  const documented = fc.subarray([...operation.queryParams]).chain((names) =>
    fc.tuple(...names.map((name) => queryValue(name, world).map((value) => `${name}=${value}`)))
  )
  const query = fc.tuple(
    documented,
    fc.array(
      fc.tuple(encodedComponent(nastyString), encodedComponent(nastyString)).map(([k, v]) => `${k}=${v}`),
      { maxLength: 2 }
    ),
    fc.boolean(),
    fc.constantFrom("", "", "", "&", "&&", "=", "&=x", "#frag", "?")
  ).map(([known, unknown, repeat, tail]) => {
    const params = [...known, ...unknown, ...(repeat ? known : [])]
    return params.length === 0 && tail === "" ? "" : `?${params.join("&")}${tail}`
  })
  const target = fc.tuple(path, query, fc.constantFrom("plain", "plain", "plain", "plain", "slash", "double", "dot"))
    .map(([p, q, form]) => {
      switch (form) {
        case "slash":
          return `${p}/${q}`
        case "double":
          return `/${p}${q}`
        case "dot":
          return `${p.replace(/\/([^/]*)$/, "/./$1")}${q}`
        case "plain":
          return `${p}${q}`
      }
    })
  const method = fc.oneof(
    { arbitrary: fc.constant(operation.method), weight: 12 },
    {
      arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "FOO"),
      weight: 1
    }
  )
  const authorization = fc.oneof(
    {
      arbitrary: fc.constant(
        operation.security === "admin" ? `Bearer ${world.adminToken}` : `Bearer ${world.key}`
      ),
      weight: 10
    },
    {
      arbitrary: fc.constantFrom(
        undefined,
        `Bearer ${world.otherKey}`,
        `Bearer ${world.adminToken}`,
        `Bearer ${world.key}`,
        `bearer ${world.key} `,
        `Basic ${Buffer.from(`a:${world.key}`).toString("base64")}`,
        "Bearer",
        "Bearer ",
        `Bearer ${world.key}x`,
        `Bearer ${world.key.slice(0, -1)}`,
        `Bearer ${"k".repeat(4000)}`,
        "Bearer va_\u00ff\u00fe",
        `Bearer ${world.key}, Bearer ${world.otherKey}`
      ),
      weight: 3
    }
  )
  const contentType = fc.oneof(
    { arbitrary: fc.constant("application/json"), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        undefined,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "multipart/form-data",
        "application/json; charset=latin1",
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/json, text/plain",
        "application/problem+json",
        "application/octet-stream",
        ";;;",
        "application/json; boundary=\"x".padEnd(1000, "x")
      ),
      weight: 3
    }
  )
  const extraHeaders = fc.array(
    fc.oneof(
      {
        arbitrary: fc.constantFrom<readonly [string, string]>(
          ["Accept", "application/xml"],
          ["Accept", "*/*;q=0.1, text/html"],
          ["Accept-Encoding", "gzip, br, zstd"],
          ["Content-Encoding", "gzip"],
          ["Expect", "100-continue"],
          ["X-Forwarded-For", "not an ip"],
          ["If-None-Match", "\"garbage\""],
          ["Cookie", "a=%ZZ; b"],
          ["Range", "bytes=0-"],
          ["Range", "bytes=-1"],
          ["Range", "bytes=5-1"],
          ["Range", "bytes=99999999999999999999-"],
          ["Range", "bytes=0-1,2-3"],
          ["Range", "lines=1-2"],
          ["Range", "bytes=abc"],
          ["Range", "bytes=-0"],
          ["Range", "bytes=100000000-"],
          ["Upgrade", "websocket"],
          ["X-Empty", ""]
        ),
        weight: 4
      },
      // What Node's HTTP parser refuses itself (400, 417): the app never sees these; NodeServer
      // answers them.
      {
        arbitrary: fc.constantFrom<readonly [string, string]>(
          ["Expect", "something-else"],
          ["Transfer-Encoding", "identity"],
          ["Content-Length", "abc"],
          ["Content-Length", "-1"]
        ),
        weight: 1
      },
      {
        arbitrary: fc.tuple(
          fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/),
          nastyString,
          fc.integer({ min: 0, max: 9 }).map((n) => n === 0)
        ).map(([name, value, controls]) => [name, headerText(value, controls)] as const),
        weight: 4
      }
    ),
    { maxLength: 3 }
  )
  return fc.tuple(target, method, authorization, contentType, extraHeaders, body(operation, document, world)).map((
    [target, method, authorization, contentType, extra, b]
  ) => {
    const headers: Array<readonly [string, string]> = []
    if (authorization !== undefined) headers.push(["Authorization", headerText(authorization)])
    if (contentType !== undefined && b.bytes !== undefined) headers.push(["Content-Type", contentType])
    headers.push(...extra)
    return {
      operation,
      bodyKind: b.kind,
      request: { method, target, headers, body: b.bytes, chunked: b.chunked }
    }
  })
}
