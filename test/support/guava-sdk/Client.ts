/**
 * Replay of the Guava Python SDK's `Client` (guava/client.py), its HTTP side (httpx 0.28 as the
 * SDK calls it) and its telemetry (guava/telemetry.py), as one "Python process": `GuavaSdk`.
 *
 * - URLs: `urljoin(base_url, path)`; the WebSocket base is the base URL with `http://` → `ws://`
 *   and `https://` → `wss://` swapped (anything else raises).
 * - Headers (`_get_headers`): the auth headers (`Authorization: Bearer <key>`, plus
 *   `x-guava-org-id` for a CLI session), then `x-guava-platform` (platform.system()),
 *   `x-guava-runtime` (CPython), `x-guava-runtime-version`, `x-guava-sdk` (python-sdk),
 *   `x-guava-sdk-version` (0.35.0).
 * - The first `Client()` of the process sends `POST v1/check-sdk-deprecation?sdk_name=python-sdk&
 *   sdk_version=0.35.0` with no key and reads `deprecation_status`; any failure is only logged.
 * - Telemetry: every public method call of the SDK's tracked classes queues a `method-call` event
 *   (an exception a `exception-raised` one), at most 100 queued; every 10 s the queue is posted to
 *   `v1/upload-telemetry` as `{events: [{timestamp_ms, event_type, data: {function_name,
 *   exception?}}]}`, failures ignored; a last upload at exit (`shutdown()`).
 * - httpx: default headers `Accept: *\/*`, `Accept-Encoding: gzip, deflate`, `Connection:
 *   keep-alive`, `User-Agent: python-httpx/0.28.1`; query strings by `urlencode`; JSON bodies
 *   compact; a bodiless POST carries `Content-Length: 0`; any non-2xx status raises
 *   (`check_response`).
 */
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { gunzipSync, inflateSync } from "node:zlib"
import { SdkError } from "./Events.ts"
import type { SocketTiming } from "./GuavaSocket.ts"
import { strRepr, urlencode, urljoin } from "./Python.ts"
import { sleep, Watch } from "./Watch.ts"

export const SDK_NAME = "python-sdk"
export const SDK_VERSION = "0.35.0"

/** How the replayed Python process describes itself. */
export interface RuntimeIdentity {
  /** `platform.system()`. */
  readonly platform: string
  /** `platform.python_implementation()`. */
  readonly runtime: string
  /** `platform.python_version()`. */
  readonly runtimeVersion: string
  readonly sdkVersion: string
  /** websockets' `User-Agent`: `Python/<major.minor> websockets/15.0.1`. */
  readonly websocketsUserAgent: string
  /** httpx's `User-Agent`. */
  readonly httpxUserAgent: string
}

export const defaultIdentity: RuntimeIdentity = {
  platform: "Linux",
  runtime: "CPython",
  runtimeVersion: "3.13.5",
  sdkVersion: SDK_VERSION,
  websocketsUserAgent: "Python/3.13 websockets/15.0.1",
  httpxUserAgent: "python-httpx/0.28.1"
}

/** The replay's delays: the SDK's by default. */
export interface SdkTiming {
  readonly socket: Partial<SocketTiming>
  /** Legacy `serve_campaign`: controller init timeout (5 s). */
  readonly controllerInitTimeoutMs: number
  /** Legacy `serve_campaign`: has-callable-contacts polling period (5 s). */
  readonly campaignPollMs: number
  /** `TelemetryClient.UPLOAD_INTERVAL_SECONDS` (10 s). */
  readonly telemetryIntervalMs: number
}

export const sdkDefaultTiming: SdkTiming = {
  socket: {},
  controllerInitTimeoutMs: 5000,
  campaignPollMs: 5000,
  telemetryIntervalMs: 10_000
}

export interface GuavaSdkOptions {
  /** `GUAVA_BASE_URL`, e.g. `http://127.0.0.1:4000/` (a path needs its trailing slash, as with urljoin). */
  readonly baseUrl: string
  /** `GUAVA_API_KEY` (sent as `Authorization: Bearer <key>`). */
  readonly apiKey: string
  /** Extra auth headers (a CLI session adds `x-guava-org-id`). */
  readonly extraAuthHeaders?: Readonly<Record<string, string>>
  readonly identity?: Partial<RuntimeIdentity>
  readonly timing?: Partial<Omit<SdkTiming, "socket">> & { readonly socket?: Partial<SocketTiming> }
  /** `GUAVA_DISABLE_TELEMETRY` unset (default true). */
  readonly telemetry?: boolean
}

/** One HTTP exchange the replay made. */
export interface HttpRecord {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
  readonly status: number | undefined
  readonly responseBody: string | undefined
  readonly error: string | undefined
  readonly at: number
}

export interface HttpResponse {
  readonly status: number
  readonly reason: string
  readonly body: string
  readonly url: string
  /** httpx `response.json()`. */
  json(): unknown
}

/** httpx's `HTTPStatusError` as `check_response` rewrites it. */
export class HttpStatusError extends SdkError {
  readonly status: number

  constructor(status: number, message: string) {
    super("HTTPStatusError", message)
    this.status = status
    this.name = "HttpStatusError"
  }
}

const pyExceptionRepr = (error: unknown): string => {
  if (error instanceof SdkError) return `${error.pythonType}(${strRepr(error.message.replace(/^[^:]*: /, ""))})`
  if (error instanceof Error) return `Exception(${strRepr(error.message)})`
  return `Exception(${strRepr(String(error))})`
}

/** `TelemetryClient`: a bounded queue uploaded periodically. */
export class Telemetry {
  /** Events queued and not uploaded yet. */
  readonly queue: Array<{ timestamp_ms: number; event_type: string; data: Record<string, string> }> = []
  /** Every upload body posted, in order. */
  readonly uploads: Array<unknown> = []
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  private readonly sdk: GuavaSdk
  readonly enabled: boolean

  constructor(sdk: GuavaSdk, enabled: boolean) {
    this.sdk = sdk
    this.enabled = enabled
    if (enabled) this.schedule()
  }

  /** `send_event(METHOD_CALL, {function_name})`; dropped when 100 are queued. */
  methodCall(functionName: string): void {
    this.put("method-call", { function_name: functionName })
  }

  /** `send_event(EXCEPTION_RAISED, {function_name, exception: repr(e)})`. */
  exceptionRaised(functionName: string, error: unknown): void {
    this.put("exception-raised", { function_name: functionName, exception: pyExceptionRepr(error) })
  }

  private put(eventType: string, data: Record<string, string>): void {
    if (!this.enabled || this.queue.length >= 100) return
    this.queue.push({ timestamp_ms: Date.now(), event_type: eventType, data })
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tick(), this.sdk.timing.telemetryIntervalMs)
    this.timer.unref()
  }

  private async tick(): Promise<void> {
    await this.upload()
    if (!this.stopped) this.schedule()
  }

  /** `_upload_events` once: needs a client (the first `Client()`); drains the queue and posts it. */
  async upload(): Promise<void> {
    const client = this.sdk.firstClient
    if (client === undefined) return
    const events = this.queue.splice(0)
    if (events.length === 0) return
    try {
      const url = client.get_http_url("v1/upload-telemetry")
      const body = { events }
      this.uploads.push(body)
      await this.sdk.http("POST", url, { headers: client.headers(), json: body, check: true })
    } catch {
      // "Telemetry upload failed." is only logged.
    }
  }

  /** `atexit` `shutdown()`: one last upload, then stop. */
  async shutdown(): Promise<void> {
    this.stopped = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    if (this.enabled) await this.upload()
  }
}

/**
 * One Python process running the SDK: its first-`Client()` flag (deprecation check), its
 * telemetry client, the HTTP log and the timing every socket inherits.
 */
export class GuavaSdk {
  readonly baseUrl: string
  readonly apiKey: string
  readonly identity: RuntimeIdentity
  readonly timing: SdkTiming
  readonly telemetry: Telemetry
  /** Every HTTP request made, in order. */
  readonly httpLog: Array<HttpRecord> = []
  readonly watch = new Watch()
  /** `deprecation_status` the check read ("supported", "deprecated"…), or the error it hit. */
  deprecationStatus: unknown
  deprecationError: unknown
  /** The process's first Client (the telemetry uploader). */
  firstClient: Client | undefined
  private readonly extraAuthHeaders: Readonly<Record<string, string>>

  constructor(options: GuavaSdkOptions) {
    this.baseUrl = options.baseUrl
    this.apiKey = options.apiKey
    this.extraAuthHeaders = options.extraAuthHeaders ?? {}
    this.identity = { ...defaultIdentity, ...options.identity }
    this.timing = {
      ...sdkDefaultTiming,
      ...options.timing,
      socket: { ...options.timing?.socket }
    }
    this.telemetry = new Telemetry(this, options.telemetry ?? true)
  }

  /** `guava.Client()` (guava/client.py `Client.__init__`): the first one checks the SDK's deprecation. */
  async client(): Promise<Client> {
    this.telemetry.methodCall("Client.__init__")
    const client = new Client(this, { Authorization: `Bearer ${this.apiKey}`, ...this.extraAuthHeaders })
    if (this.firstClient === undefined) {
      this.firstClient = client
      await client.checkSdkDeprecation()
    }
    return client
  }

  /** Track a call of a public SDK method (telemetry `track_class` wrapper); rethrows after reporting. */
  tracked<T>(functionName: string, body: () => T): T {
    this.telemetry.methodCall(functionName)
    try {
      const result = body()
      if (result instanceof Promise) {
        return result.catch((error: unknown) => {
          this.telemetry.exceptionRaised(functionName, error)
          throw error
        }) as T
      }
      return result
    } catch (error) {
      this.telemetry.exceptionRaised(functionName, error)
      throw error
    }
  }

  /** An httpx request as the SDK makes it (recorded in `httpLog`). */
  async http(
    method: string,
    url: string,
    options: {
      readonly headers?: Readonly<Record<string, string>>
      readonly params?: ReadonlyArray<readonly [string, string]>
      readonly json?: unknown
      readonly check?: boolean
    } = {}
  ): Promise<HttpResponse> {
    let full = url
    if (options.params !== undefined && options.params.length > 0) {
      full += (full.includes("?") ? "&" : "?") + urlencode(options.params)
    }
    const body = options.json === undefined ? undefined : JSON.stringify(options.json)
    const headers: Record<string, string> = {
      Accept: "*/*",
      "Accept-Encoding": "gzip, deflate",
      Connection: "keep-alive",
      "User-Agent": this.identity.httpxUserAgent,
      ...options.headers
    }
    if (body !== undefined) {
      headers["Content-Length"] = String(Buffer.byteLength(body))
      headers["Content-Type"] = "application/json"
    } else if (method === "POST" || method === "PUT" || method === "PATCH") {
      headers["Content-Length"] = "0"
    }
    let response: { status: number; reason: string; body: string }
    try {
      response = await rawRequest(method, full, headers, body)
    } catch (error) {
      this.httpLog.push({
        method,
        url: full,
        headers,
        body,
        status: undefined,
        responseBody: undefined,
        error: String(error),
        at: Date.now()
      })
      this.watch.notify()
      throw new SdkError("httpx.ConnectError", String(error))
    }
    this.httpLog.push({
      method,
      url: full,
      headers,
      body,
      status: response.status,
      responseBody: response.body,
      error: undefined,
      at: Date.now()
    })
    this.watch.notify()
    const result: HttpResponse = {
      status: response.status,
      reason: response.reason,
      body: response.body,
      url: full,
      json: () => {
        try {
          return JSON.parse(response.body)
        } catch (error) {
          throw new SdkError("JSONDecodeError", String(error))
        }
      }
    }
    if (options.check === true && (response.status < 200 || response.status > 299)) {
      throw new HttpStatusError(
        response.status,
        `HTTP ${response.status} ${response.reason} for url '${full}', Body: ${response.body}`
      )
    }
    return result
  }

  /** `atexit`: the telemetry's last upload. */
  async shutdown(): Promise<void> {
    await this.telemetry.shutdown()
  }
}

const rawRequest = (
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined
): Promise<{ status: number; reason: string; body: string }> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const send = target.protocol === "https:" ? httpsRequest : httpRequest
    const req = send(target, { method, headers, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        let raw = Buffer.concat(chunks)
        const encoding = res.headers["content-encoding"]
        if (encoding === "gzip") raw = gunzipSync(raw)
        else if (encoding === "deflate") raw = inflateSync(raw)
        resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? "", body: raw.toString("utf8") })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    if (body !== undefined) req.write(body)
    req.end()
  })

/** `guava.Client`: URLs, headers and the HTTP endpoints the agent flows use. */
export class Client {
  readonly sdk: GuavaSdk
  private readonly authHeaders: Readonly<Record<string, string>>

  constructor(sdk: GuavaSdk, authHeaders: Readonly<Record<string, string>>) {
    this.sdk = sdk
    this.authHeaders = authHeaders
  }

  /** `Client._get_headers()`. */
  headers(): Record<string, string> {
    const id = this.sdk.identity
    return {
      ...this.authHeaders,
      "x-guava-platform": id.platform,
      "x-guava-runtime": id.runtime,
      "x-guava-runtime-version": id.runtimeVersion,
      "x-guava-sdk": SDK_NAME,
      "x-guava-sdk-version": id.sdkVersion
    }
  }

  get_http_url(path: string): string {
    return this.sdk.tracked("Client.get_http_url", () => urljoin(this.sdk.baseUrl, path))
  }

  get_websocket_url(path: string): string {
    return this.sdk.tracked("Client.get_websocket_url", () => urljoin(websocketBase(this.sdk.baseUrl), path))
  }

  /**
   * The deprecation check of the process's first `Client()`: `POST v1/check-sdk-deprecation` with
   * `sdk_name` and `sdk_version` as query and no auth header; reads `deprecation_status`; any
   * failure is logged, never raised.
   */
  async checkSdkDeprecation(): Promise<unknown> {
    try {
      const response = await this.sdk.http("POST", this.get_http_url("v1/check-sdk-deprecation"), {
        params: [["sdk_name", SDK_NAME], ["sdk_version", this.sdk.identity.sdkVersion]],
        check: true
      })
      const info = response.json()
      if (typeof info !== "object" || info === null || Array.isArray(info) || !("deprecation_status" in info)) {
        throw new SdkError("KeyError", "'deprecation_status'")
      }
      this.sdk.deprecationStatus = info.deprecation_status
    } catch (error) {
      this.sdk.deprecationError = error
    }
    return this.sdk.deprecationStatus
  }

  /** `POST v2/create-outbound?from_number=&to_number=` → `call_id` (raises on non-2xx or a missing key). */
  async createOutbound(fromNumber: string | null, toNumber: string): Promise<unknown> {
    // httpx's primitive_value_to_str writes None as an empty value (`from_number=`).
    const params: Array<readonly [string, string]> = [["from_number", fromNumber ?? ""], ["to_number", toNumber]]
    const response = await this.sdk.http("POST", this.get_http_url("v2/create-outbound"), {
      headers: this.headers(),
      params,
      check: true
    })
    const body = response.json()
    if (typeof body !== "object" || body === null || Array.isArray(body) || !("call_id" in body)) {
      throw new SdkError("KeyError", "'call_id'")
    }
    return body.call_id
  }

  /** `campaigns.get_campaign_by_code`: `GET v1/campaigns/{code}` → the campaign's JSON. */
  async getCampaignByCode(code: string): Promise<unknown> {
    const response = await this.sdk.http("GET", this.get_http_url(`v1/campaigns/${code}`), {
      headers: this.headers(),
      check: true
    })
    return response.json()
  }

  /** `GET v1/campaigns/{id}/has-callable-contacts` (legacy serve_campaign's poller). */
  async hasCallableContacts(campaignId: string): Promise<unknown> {
    const response = await this.sdk.http("GET", this.get_http_url(`v1/campaigns/${campaignId}/has-callable-contacts`), {
      headers: this.headers(),
      check: true
    })
    return response.json()
  }
}

/** `Client._get_websocket_base`. */
export const websocketBase = (baseUrl: string): string => {
  if (baseUrl.startsWith("http://")) return "ws://" + baseUrl.slice("http://".length)
  if (baseUrl.startsWith("https://")) return "wss://" + baseUrl.slice("https://".length)
  throw new SdkError("Exception", "Invalid base URL: " + baseUrl)
}

export { sleep }
