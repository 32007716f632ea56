/**
 * The few Python standard-library behaviours the Guava SDK leans on and that a server can observe:
 * `urllib.parse.urljoin` (how every URL is built from the base URL), `urlencode` (query strings),
 * `str()` of JSON values (ids interpolated into paths), `json.dumps(..., indent=2)` (call.add_info),
 * truthiness (contact_data checks) and the exception reprs telemetry uploads.
 */

/** Schemes `urljoin` resolves relative references against (Python 3.11+ `uses_relative`). */
const usesRelative = new Set([
  "",
  "ftp",
  "http",
  "gopher",
  "nntp",
  "imap",
  "wais",
  "file",
  "https",
  "shttp",
  "mms",
  "prospero",
  "rtsp",
  "rtsps",
  "rtspu",
  "sftp",
  "svn",
  "svn+ssh",
  "ws",
  "wss"
])

/** Schemes whose netloc `urljoin` keeps from the base (Python `uses_netloc`, the ones that matter here). */
const usesNetloc = new Set([...usesRelative, "telnet", "snews", "rsync", "nfs", "git", "git+ssh"])

interface SplitUrl {
  scheme: string
  netloc: string
  path: string
  query: string
  fragment: string
  hasNetloc: boolean
  hasQuery: boolean
  hasFragment: boolean
}

const schemeChars = /^[A-Za-z][A-Za-z0-9+.-]*$/

/** `urllib.parse.urlsplit(url, scheme=defaultScheme)`. */
const urlsplit = (url: string, defaultScheme: string): SplitUrl => {
  let rest = url
  let scheme = defaultScheme
  const colon = rest.indexOf(":")
  if (colon > 0 && schemeChars.test(rest.slice(0, colon))) {
    scheme = rest.slice(0, colon).toLowerCase()
    rest = rest.slice(colon + 1)
  }
  let netloc = ""
  let hasNetloc = false
  if (rest.startsWith("//")) {
    const end = rest.slice(2).search(/[/?#]/)
    netloc = end === -1 ? rest.slice(2) : rest.slice(2, end + 2)
    rest = end === -1 ? "" : rest.slice(end + 2)
    hasNetloc = true
  }
  let fragment = ""
  let hasFragment = false
  const hash = rest.indexOf("#")
  if (hash !== -1) {
    fragment = rest.slice(hash + 1)
    rest = rest.slice(0, hash)
    hasFragment = true
  }
  let query = ""
  let hasQuery = false
  const question = rest.indexOf("?")
  if (question !== -1) {
    query = rest.slice(question + 1)
    rest = rest.slice(0, question)
    hasQuery = true
  }
  return { scheme, netloc, path: rest, query, fragment, hasNetloc, hasQuery, hasFragment }
}

const urlunsplit = (parts: SplitUrl): string => {
  let url = parts.path
  if (parts.netloc !== "" || (parts.scheme !== "" && usesNetloc.has(parts.scheme) && !url.startsWith("//"))) {
    if (url !== "" && !url.startsWith("/")) url = "/" + url
    url = "//" + parts.netloc + url
  }
  if (parts.scheme !== "") url = parts.scheme + ":" + url
  if (parts.query !== "") url += "?" + parts.query
  if (parts.fragment !== "") url += "#" + parts.fragment
  return url
}

/**
 * Python's `urllib.parse.urljoin(base, url)` (RFC 3986 resolution as CPython implements it,
 * without WHATWG normalisation): `urljoin("http://h/api", "v2/x")` is `http://h/v2/x`, while
 * `urljoin("http://h/api/", "v2/x")` is `http://h/api/v2/x` (guava/client.py get_http_url).
 */
export const urljoin = (base: string, url: string): string => {
  if (base === "") return url
  if (url === "") return base
  const b = urlsplit(base, "")
  const u = urlsplit(url, b.scheme)
  if (u.scheme !== b.scheme || !usesRelative.has(u.scheme)) return url
  let netloc = u.netloc
  if (usesNetloc.has(u.scheme)) {
    if (u.netloc !== "") return urlunsplit(u)
    netloc = b.netloc
  }
  if (u.path === "") {
    return urlunsplit({ ...u, netloc, path: b.path, query: u.query !== "" ? u.query : b.query })
  }
  const baseParts = b.path.split("/")
  if (baseParts[baseParts.length - 1] !== "") baseParts.pop()
  let segments: Array<string>
  if (u.path.startsWith("/")) {
    segments = u.path.split("/")
  } else {
    segments = [...baseParts, ...u.path.split("/")]
    // CPython drops empty segments between the first and the last one.
    segments = [
      segments[0] ?? "",
      ...segments.slice(1, -1).filter((s) => s !== ""),
      segments[segments.length - 1] ?? ""
    ]
  }
  const resolved: Array<string> = []
  for (const segment of segments) {
    if (segment === "..") {
      resolved.pop()
    } else if (segment !== ".") {
      resolved.push(segment)
    }
  }
  const last = segments[segments.length - 1]
  if (last === "." || last === "..") resolved.push("")
  const path = resolved.join("/")
  return urlunsplit({ ...u, netloc, path: path === "" ? "/" : path })
}

/** `urllib.parse.quote_plus`: unreserved `A-Za-z0-9_.-~` kept, space as `+`, UTF-8 `%XX` otherwise. */
export const quotePlus = (value: string): string => {
  let out = ""
  for (const byte of Buffer.from(value, "utf8")) {
    const c = String.fromCharCode(byte)
    if (/[A-Za-z0-9_.\-~]/.test(c)) out += c
    else if (c === " ") out += "+"
    else out += "%" + byte.toString(16).toUpperCase().padStart(2, "0")
  }
  return out
}

/** `urllib.parse.urlencode(pairs)` (what httpx's `params=` and the SDK's own query strings produce). */
export const urlencode = (pairs: ReadonlyArray<readonly [string, string]>): string =>
  pairs.map(([k, v]) => `${quotePlus(k)}=${quotePlus(v)}`).join("&")

/** Python `repr()` of a float, from the shortest round-trip digits JavaScript gives. */
export const floatRepr = (x: number): string => {
  if (Number.isNaN(x)) return "nan"
  if (x === Infinity) return "inf"
  if (x === -Infinity) return "-inf"
  const [mantissa = "0", expText = "0"] = x.toExponential().split("e")
  const exp = Number(expText)
  const negative = mantissa.startsWith("-")
  const digits = mantissa.replace("-", "").replace(".", "")
  let body: string
  if (exp >= -5 && exp < 16) {
    if (exp >= digits.length - 1) {
      body = digits + "0".repeat(exp - digits.length + 1) + ".0"
    } else if (exp >= 0) {
      body = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1)
    } else {
      body = "0." + "0".repeat(-exp - 1) + digits
    }
  } else {
    const frac = digits.slice(1)
    body = digits[0] + (frac === "" ? "" : "." + frac) + "e" + (exp < 0 ? "-" : "+") +
      String(Math.abs(exp)).padStart(2, "0")
  }
  return (negative ? "-" : "") + body
}

/** Python `repr()` of a str (quote choice and escapes as CPython does for printable text). */
export const strRepr = (s: string): string => {
  const quote = s.includes("'") && !s.includes("\"") ? "\"" : "'"
  let out = quote
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0
    if (ch === quote || ch === "\\") out += "\\" + ch
    else if (ch === "\n") out += "\\n"
    else if (ch === "\r") out += "\\r"
    else if (ch === "\t") out += "\\t"
    else if (code < 0x20 || code === 0x7f) out += "\\x" + code.toString(16).padStart(2, "0")
    else out += ch
  }
  return out + quote
}

/**
 * Python `repr()` of a JSON-decoded value. An integral number is taken to be an int: JavaScript
 * cannot tell `1` from `1.0` once parsed (a documented limit of the replay).
 */
export const pyRepr = (value: unknown): string => {
  if (value === null || value === undefined) return "None"
  if (value === true) return "True"
  if (value === false) return "False"
  if (typeof value === "number") return Number.isInteger(value) ? String(BigInt(value)) : floatRepr(value)
  if (typeof value === "string") return strRepr(value)
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]"
  if (typeof value === "object") {
    return "{" + Object.entries(value).map(([k, v]) => `${strRepr(k)}: ${pyRepr(v)}`).join(", ") + "}"
  }
  return typeof value === "bigint" ? value.toString() : `<${typeof value}>`
}

/** Python `str()` of a JSON-decoded value, as an f-string interpolates it (`f"v2/connect-call/{call_id}"`). */
export const pyStr = (value: unknown): string => (typeof value === "string" ? value : pyRepr(value))

/** Python truthiness of a JSON-decoded value. */
export const pyTruthy = (value: unknown): boolean => {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === "object") return Object.keys(value).length > 0
  return true
}

/** Python's type name of a JSON-decoded value (for error messages such as `'list' object has no attribute 'get'`). */
export const pyTypeName = (value: unknown): string => {
  if (value === null || value === undefined) return "NoneType"
  if (typeof value === "boolean") return "bool"
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float"
  if (typeof value === "string") return "str"
  if (Array.isArray(value)) return "list"
  return "dict"
}

/** A JSON object as Python's `json` module would have decoded it into a dict. */
export const isDict = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const jsonString = (s: string): string => {
  let out = "\""
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0
    if (ch === "\"") out += "\\\""
    else if (ch === "\\") out += "\\\\"
    else if (ch === "\n") out += "\\n"
    else if (ch === "\r") out += "\\r"
    else if (ch === "\t") out += "\\t"
    else if (ch === "\b") out += "\\b"
    else if (ch === "\f") out += "\\f"
    else if (code < 0x20 || code > 0x7e) {
      // ensure_ascii=True: every non-ASCII code point as \uXXXX (surrogate pairs above the BMP).
      for (let i = 0; i < ch.length; i++) out += "\\u" + ch.charCodeAt(i).toString(16).padStart(4, "0")
    } else out += ch
  }
  return out + "\""
}

/** Python `json.dumps(value, indent=2)` (ensure_ascii, `", "`/`": "` separators with indent). */
export const jsonDumpsIndent2 = (value: unknown, level = 0): string => {
  const pad = (n: number) => " ".repeat(2 * n)
  if (value === null || value === undefined) return "null"
  if (value === true) return "true"
  if (value === false) return "false"
  if (typeof value === "number") {
    if (Number.isInteger(value)) return String(BigInt(value))
    if (Number.isNaN(value)) return "NaN"
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity"
    return floatRepr(value)
  }
  if (typeof value === "string") return jsonString(value)
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]"
    return "[\n" + value.map((v) => pad(level + 1) + jsonDumpsIndent2(v, level + 1)).join(",\n") + "\n" + pad(level) +
      "]"
  }
  if (typeof value === "object") {
    const entries = Object.entries(value)
    if (entries.length === 0) return "{}"
    return "{\n" +
      entries.map(([k, v]) => pad(level + 1) + jsonString(k) + ": " + jsonDumpsIndent2(v, level + 1)).join(",\n") +
      "\n" + pad(level) + "}"
  }
  throw new TypeError(`Object of type ${typeof value} is not JSON serializable`)
}

/** `guava.utils.is_jsonable`: whether `json.dumps` accepts the value (NaN and infinities included). */
export const isJsonable = (value: unknown): boolean => {
  if (value === null || typeof value === "boolean" || typeof value === "number" || typeof value === "string") {
    return true
  }
  if (Array.isArray(value)) return value.every(isJsonable)
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every(isJsonable)
  }
  return false
}

/** 5 or 6 random lowercase hex characters, like `uuid.uuid4().hex[:n]`. */
export const randomHex = (n: number): string => {
  let out = ""
  while (out.length < n) out += Math.floor(Math.random() * 16).toString(16)
  return out
}
