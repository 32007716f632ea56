/**
 * The two HTTP requests the agent makes, over Node's `fetch`, with the connection's headers:
 *
 * - `POST v2/create-outbound?from_number=&to_number=` → `{call_id}`: places an outbound call
 *   that the agent then attaches to.
 * - `GET v1/campaigns/{code}` → `{id, name, …}`: the campaign whose calls the agent serves.
 *
 * A non-2xx answer, or a 2xx one without the expected field, is an `ApiError` carrying the
 * status and body (never the headers).
 *
 * @since 0.1.0
 */
import type { JsonObject } from "@voice-agent/agent-protocol/Json"
import { isObject } from "@voice-agent/agent-protocol/Json"
import type { Connection } from "./Config.ts"
import { ApiError } from "./Errors.ts"

export interface Campaign extends JsonObject {
  readonly id: string
}

const request = async (
  connection: Connection,
  method: "GET" | "POST",
  url: URL,
  signal?: AbortSignal
): Promise<Record<string, unknown>> => {
  const response = await fetch(url, {
    method,
    headers: { ...connection.headers, accept: "application/json" },
    ...(signal === undefined ? {} : { signal })
  })
  const body = await response.text()
  if (!response.ok) throw new ApiError(method, url.href, response.status, body)
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    throw new ApiError(method, url.href, response.status, body)
  }
  if (!isObject(value)) throw new ApiError(method, url.href, response.status, body)
  return value
}

/** Places an outbound call from `from` to `to` (E.164) and answers its call id. */
export const createOutbound = async (
  connection: Connection,
  call: { readonly from: string; readonly to: string },
  signal?: AbortSignal
): Promise<string> => {
  const url = connection.httpUrl("v2/create-outbound")
  url.searchParams.set("from_number", call.from)
  url.searchParams.set("to_number", call.to)
  const body = await request(connection, "POST", url, signal)
  const callId = body["call_id"]
  if (typeof callId !== "string" || callId === "") {
    throw new ApiError("POST", url.href, 200, `no call_id in ${JSON.stringify(body)}`)
  }
  return callId
}

/** Reads a campaign by its code (`GET v1/campaigns/{code}`). */
export const getCampaign = async (
  connection: Connection,
  code: string,
  signal?: AbortSignal
): Promise<Campaign> => {
  const url = connection.httpUrl(`v1/campaigns/${encodeURIComponent(code)}`)
  const body = await request(connection, "GET", url, signal)
  if (typeof body["id"] !== "string") {
    throw new ApiError("GET", url.href, 200, `no id in ${JSON.stringify(body)}`)
  }
  return body as Campaign
}
