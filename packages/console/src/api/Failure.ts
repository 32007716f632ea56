/**
 * What a failed API call means to an operator: signed out (401), offline (no answer), the
 * server failing (5xx: try again), or the API refusing the request with its reason (4xx with
 * the API's `detail`, or the rejected rows of an upload).
 */
import type { RejectedEntry } from "@voice-agent/core/Errors"
import { UploadRejected } from "@voice-agent/http/api/ContactsApi"
import {
  BadRequest,
  Conflict,
  Forbidden,
  InternalServerError,
  NotFound,
  Unauthorized
} from "@voice-agent/http/api/HttpErrors"
import { BadGateway, NotImplemented } from "@voice-agent/http/api/ServerErrors"
import { HTTPValidationError } from "@voice-agent/http/api/Validation"
import type { Credential } from "./Session.ts"

/**
 * @category models
 */
export type Failure =
  | { readonly _tag: "Unauthorized"; readonly credential: Credential; readonly message: string }
  | { readonly _tag: "Offline"; readonly message: string }
  | { readonly _tag: "ServerError"; readonly status: number; readonly message: string }
  | {
    readonly _tag: "Refused"
    readonly status: number
    readonly message: string
    readonly rejected?: ReadonlyArray<RejectedEntry>
  }

const refusals: ReadonlyArray<readonly [abstract new(...args: never) => { readonly detail: string }, number]> = [
  [BadRequest, 400],
  [Forbidden, 403],
  [NotFound, 404],
  [Conflict, 409]
]

const serverErrors: ReadonlyArray<readonly [abstract new(...args: never) => { readonly detail: string }, number]> = [
  [InternalServerError, 500],
  [NotImplemented, 501],
  [BadGateway, 502]
]

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/**
 * A validation error's items as one sentence: `body.name: Field required`.
 *
 * @category encoding
 */
export const validationMessage = (
  items: ReadonlyArray<{ readonly loc: ReadonlyArray<string | number>; readonly msg: string }>
): string => items.map((item) => `${item.loc.join(".")}: ${item.msg}`).join("; ")

/**
 * @category decoding
 */
export const classify = (error: unknown, credential: Credential): Failure => {
  if (error instanceof Unauthorized) return { _tag: "Unauthorized", credential, message: error.detail }
  if (error instanceof UploadRejected) {
    return {
      _tag: "Refused",
      status: 400,
      message: `${error.rejected} of the contacts were refused; nothing was created`,
      rejected: error.rejected_entries
    }
  }
  if (error instanceof HTTPValidationError) {
    return { _tag: "Refused", status: 422, message: validationMessage(error.detail) }
  }
  for (const [type, status] of refusals) {
    if (error instanceof type) return { _tag: "Refused", status, message: error.detail }
  }
  for (const [type, status] of serverErrors) {
    if (error instanceof type) return { _tag: "ServerError", status, message: error.detail }
  }
  if (isRecord(error) && error["_tag"] === "HttpClientError" && isRecord(error["reason"])) {
    const reason = error["reason"]
    if (reason["_tag"] === "TransportError") {
      return { _tag: "Offline", message: "The daemon did not answer (offline, or it is not running)" }
    }
    const response = reason["response"]
    if (isRecord(response) && typeof response["status"] === "number") {
      const status = response["status"]
      if (status === 401) return { _tag: "Unauthorized", credential, message: "Signed out" }
      return status >= 500
        ? { _tag: "ServerError", status, message: `The daemon failed to answer (HTTP ${status})` }
        : { _tag: "Refused", status, message: `The daemon refused the request (HTTP ${status})` }
    }
  }
  return { _tag: "ServerError", status: 0, message: "The daemon's answer could not be read" }
}
