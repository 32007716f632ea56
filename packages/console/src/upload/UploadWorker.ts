/**
 * A contacts upload off the page's thread, as the terminal's `contacts upload` does it (core's
 * ContactFile, the API's own rules): the file is streamed, decoded as UTF-8 and read piece by
 * piece, with progress after each piece; the checked file stays here, and on the page's word its
 * batches of 10,000 go one after another through the client derived from the API definition,
 * each encoded here too. A 100,000-row file never holds up the page.
 */
import * as ContactFile from "@voice-agent/core/ContactFile"
import { Api } from "@voice-agent/http/api/Api"
import { Cause, Effect, Exit, Result } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { classify } from "../api/Failure.ts"
import type { UploadReply, UploadRequest } from "./Messages.ts"

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<UploadRequest>) => void) | null
  postMessage: (reply: UploadReply) => void
}

let checked: ContactFile.CheckedFile | undefined

const malformed = (error: ContactFile.ContactFileError): UploadReply => ({
  _tag: "Malformed",
  row: error.row,
  message: error.message
})

const check = async (file: File, allowDuplicates: boolean): Promise<UploadReply> => {
  checked = undefined
  const kind = ContactFile.kindOfFileName(file.name)
  if (kind === undefined) return { _tag: "Malformed", row: null, message: "Choose a .csv, .json or .jsonl file" }
  const read = ContactFile.reader(kind, { allowDuplicates })
  const decoder = new TextDecoder("utf-8")
  const pieces = file.stream().getReader()
  let bytes = 0
  for (;;) {
    const { done, value } = await pieces.read()
    const written = read.write(done ? decoder.decode() : decoder.decode(value, { stream: true }))
    if (Result.isFailure(written)) return malformed(written.failure)
    if (done) break
    bytes += value.length
    scope.postMessage({ _tag: "Reading", bytes, rows: read.rows() })
  }
  const ended = read.end()
  if (Result.isFailure(ended)) return malformed(ended.failure)
  checked = ended.success
  return {
    _tag: "Checked",
    rows: checked.rows,
    accepted: checked.accepted,
    batches: checked.batches.length,
    refused: checked.refused
  }
}

const send = async (request: Extract<UploadRequest, { _tag: "Send" }>): Promise<UploadReply> => {
  if (checked === undefined || checked.refused.length > 0) {
    return { _tag: "Malformed", row: null, message: "Check the file first" }
  }
  const httpClient = Effect.runSync(
    Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(HttpClientRequest.bearerToken(request.token))).pipe(
      Effect.provide(FetchHttpClient.layer)
    )
  )
  const contacts = Effect.runSync(HttpApiClient.group(Api, { group: "contacts", httpClient, baseUrl: request.baseUrl }))
  let created = 0
  for (const [index, batch] of checked.batches.entries()) {
    const exit = await Effect.runPromiseExit(contacts.upload({
      params: { campaign_code: request.campaignCode },
      query: { accepted_terms_of_service: "true", allow_duplicates: request.allowDuplicates },
      payload: { contacts: batch.contacts }
    }))
    if (Exit.isFailure(exit)) {
      const failure = classify(Cause.squash(exit.cause), "apiKey")
      if (failure._tag === "Refused" && failure.rejected !== undefined) {
        return {
          _tag: "BatchRefused",
          batch: index + 1,
          createdBefore: created,
          rows: ContactFile.refusedRows(batch, failure.rejected),
          message: failure.message
        }
      }
      return { _tag: "Failed", failure }
    }
    created += exit.value.created
    scope.postMessage({ _tag: "Sent", batch: index + 1, created })
  }
  return { _tag: "Done", created }
}

scope.onmessage = (event) => {
  const request = event.data
  const work = request._tag === "Check" ? check(request.file, request.allowDuplicates) : send(request)
  void work.then(scope.postMessage, (error: unknown) =>
    scope.postMessage({
      _tag: "Failed",
      failure: { _tag: "ServerError", status: 0, message: `The upload failed: ${String(error)}` }
    }))
}
