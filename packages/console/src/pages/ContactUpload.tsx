/**
 * Uploading a contacts file (.csv, .json, .jsonl, any size) to a campaign, as the terminal's
 * `contacts upload` does it (core's ContactFile), all of it in a Web Worker (upload/UploadWorker):
 * the whole file is read and checked first, and nothing is sent while a row is refused (each
 * named with the API's reason); then the contacts go in the API's batches of 10,000, one after
 * another, each all or nothing. A batch the API refuses stops the upload and names its rows, and
 * what was created before it.
 */
import type { Campaign } from "@voice-agent/core/Campaign"
import type { RefusedRow } from "@voice-agent/core/ContactFile"
import { BatchSize } from "@voice-agent/core/ContactFile"
import type { RejectionReason } from "@voice-agent/core/Errors"
import { useEffect, useRef, useState } from "preact/hooks"
import type { Failure } from "../api/Failure.ts"
import * as Session from "../api/Session.ts"
import { count } from "../Format.ts"
import { FailureView } from "../ui/States.tsx"
import type { UploadReply, UploadRequest } from "../upload/Messages.ts"

type Stage =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Checking"; readonly bytes: number; readonly total: number; readonly rows: number }
  | { readonly _tag: "Malformed"; readonly row: number | null; readonly message: string }
  | { readonly _tag: "Refused"; readonly rows: ReadonlyArray<RefusedRow> }
  | {
    readonly _tag: "Sending"
    readonly sent: number
    readonly total: number
    readonly batch: number
    readonly batches: number
  }
  | { readonly _tag: "Done"; readonly created: number; readonly batches: number }
  | {
    readonly _tag: "BatchRefused"
    readonly batch: number
    readonly batches: number
    readonly createdBefore: number
    readonly rows: ReadonlyArray<RefusedRow>
    readonly message: string
  }

const reasons: Record<RejectionReason, string> = {
  invalid_phone_number: "not a valid phone number",
  do_not_call: "on the Do-Not-Call list",
  duplicate: "a duplicate",
  data_too_large: "data over 16 KB"
}

const RefusedTable = ({ rows }: { readonly rows: ReadonlyArray<RefusedRow> }) => (
  <div class="table-wrap">
    <table class="refused">
      <thead>
        <tr>
          <th class="num">Row</th>
          <th>Number</th>
          <th>Reason</th>
        </tr>
      </thead>
      <tbody>
        {rows.slice(0, 1000).map((row) => (
          <tr key={row.row}>
            <td class="num">{row.row}</td>
            <td class="mono">{row.phone_number}</td>
            <td>
              <code>{row.reason}</code>: {reasons[row.reason]}
              {row.first_row !== undefined && ` (repeats row ${row.first_row})`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    {rows.length > 1000 && <p class="muted">And {count(rows.length - 1000)} more.</p>}
  </div>
)

/** How far the check (reading the file) and the sending are, in percent; undefined before they start. */
const progress = (stage: Stage): { readonly checked: number; readonly sent: number | undefined } | undefined => {
  switch (stage._tag) {
    case "Checking":
      return { checked: stage.total === 0 ? 100 : Math.floor((100 * stage.bytes) / stage.total), sent: undefined }
    case "Sending":
      return { checked: 100, sent: Math.floor((100 * stage.sent) / Math.max(1, stage.total)) }
    case "Done":
      return { checked: 100, sent: 100 }
    case "Idle":
    case "Malformed":
    case "Refused":
    case "BatchRefused":
      return undefined
  }
}

export const ContactUpload = (
  { campaign, onCreated }: {
    readonly campaign: Campaign
    /** Called once contacts were created (the whole file, or the batches before a refused one). */
    readonly onCreated: () => void
  }
) => {
  const [file, setFile] = useState<File | undefined>(undefined)
  const [terms, setTerms] = useState(false)
  const [allowDuplicates, setAllowDuplicates] = useState(false)
  const [stage, setStage] = useState<Stage>({ _tag: "Idle" })
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const worker = useRef<Worker | undefined>(undefined)
  useEffect(() => () => worker.current?.terminate(), [])
  const busy = stage._tag === "Checking" || stage._tag === "Sending"

  const start = (event: Event) => {
    event.preventDefault()
    if (file === undefined) return
    worker.current?.terminate()
    setFailure(undefined)
    setStage({ _tag: "Checking", bytes: 0, total: file.size, rows: 0 })
    const uploader = new Worker(new URL("../upload/UploadWorker.ts", import.meta.url), { type: "module" })
    worker.current = uploader
    const post = (request: UploadRequest) => uploader.postMessage(request)
    const finish = () => {
      uploader.terminate()
      if (worker.current === uploader) worker.current = undefined
    }
    let total = 0
    let batches = 0
    uploader.onmessage = (message: MessageEvent<UploadReply>) => {
      const reply = message.data
      switch (reply._tag) {
        case "Reading":
          return setStage({ _tag: "Checking", bytes: reply.bytes, total: file.size, rows: reply.rows })
        case "Malformed":
          finish()
          return setStage({ _tag: "Malformed", row: reply.row, message: reply.message })
        case "Checked": {
          if (reply.refused.length > 0) {
            finish()
            return setStage({ _tag: "Refused", rows: reply.refused })
          }
          if (reply.accepted === 0) {
            finish()
            return setStage({ _tag: "Malformed", row: null, message: "The file holds no contact" })
          }
          const token = Session.get("apiKey")
          if (token === null) return finish()
          total = reply.accepted
          batches = reply.batches
          setStage({ _tag: "Sending", sent: 0, total, batch: 1, batches })
          return post({
            _tag: "Send",
            token,
            baseUrl: location.origin,
            campaignCode: campaign.campaign_code,
            allowDuplicates
          })
        }
        case "Sent":
          return setStage({ _tag: "Sending", sent: reply.created, total, batch: reply.batch + 1, batches })
        case "BatchRefused":
          finish()
          if (reply.createdBefore > 0) onCreated()
          return setStage({
            _tag: "BatchRefused",
            batch: reply.batch,
            batches,
            createdBefore: reply.createdBefore,
            rows: reply.rows,
            message: reply.message
          })
        case "Failed":
          finish()
          if (reply.failure._tag === "Unauthorized") Session.forget("apiKey")
          setStage({ _tag: "Idle" })
          return setFailure(reply.failure)
        case "Done":
          finish()
          setStage({ _tag: "Done", created: reply.created, batches })
          return onCreated()
      }
    }
    uploader.onerror = (error) => {
      finish()
      setStage({ _tag: "Malformed", row: null, message: `The file could not be read: ${error.message}` })
    }
    post({ _tag: "Check", file, allowDuplicates })
  }

  const bars = progress(stage)
  return (
    <form class="stack upload" onSubmit={start} aria-label="Upload contacts">
      <p class="muted">
        A .csv file (a header row with a <code>phone_number</code>{" "}
        column; every other column goes into the contact's data), or .json / .jsonl contacts as the API takes them.
        Every row is checked before anything is sent; the contacts then go in batches of {count(BatchSize)}.
      </p>
      <div class="row">
        <label>
          File
          <input
            type="file"
            name="file"
            accept=".csv,.json,.jsonl,text/csv,application/json"
            disabled={busy}
            onChange={(e) => {
              setFile(e.currentTarget.files?.[0])
              setStage({ _tag: "Idle" })
            }}
          />
        </label>
        <label class="inline">
          <input
            type="checkbox"
            name="allow_duplicates"
            checked={allowDuplicates}
            disabled={busy}
            onChange={(e) => setAllowDuplicates(e.currentTarget.checked)}
          />
          Allow duplicate numbers
        </label>
        <label class="inline">
          <input
            type="checkbox"
            name="accepted_terms_of_service"
            checked={terms}
            disabled={busy}
            onChange={(e) => setTerms(e.currentTarget.checked)}
          />
          I accept the terms of service
        </label>
        <button type="submit" class="primary" disabled={busy || file === undefined || !terms}>Upload</button>
      </div>
      {bars !== undefined && (
        <div class="progress">
          <label>
            File checked
            <progress class="checked" max={100} value={bars.checked} data-percent={bars.checked} />
          </label>
          <label>
            Contacts sent
            <progress class="sent" max={100} value={bars.sent ?? 0} data-percent={bars.sent ?? 0} />
          </label>
          <p class="muted" role="status" aria-live="polite">
            {stage._tag === "Checking" && `Checking the file: ${count(stage.rows)} rows read (${bars.checked}%)`}
            {stage._tag === "Sending" &&
              `Sending batch ${stage.batch} of ${stage.batches}: ${count(stage.sent)} of ${
                count(stage.total)
              } contacts created (${bars.sent}%)`}
            {stage._tag === "Done" &&
              `${count(stage.created)} contacts created in ${stage.batches} batch${stage.batches === 1 ? "" : "es"}`}
          </p>
        </div>
      )}
      {stage._tag === "Malformed" && (
        <p class="error" role="alert">
          Nothing was sent: {stage.row === null ? "" : `row ${stage.row}: `}
          {stage.message}
        </p>
      )}
      {stage._tag === "Refused" && (
        <div role="alert">
          <p class="error">
            Nothing was sent: {count(stage.rows.length)} row{stage.rows.length === 1 ? " is" : "s are"} refused. Fix
            {" "}
            {stage.rows.length === 1 ? "it" : "them"} (or allow duplicates), then upload again.
          </p>
          <RefusedTable rows={stage.rows} />
        </div>
      )}
      {stage._tag === "BatchRefused" && (
        <div role="alert">
          <p class="error">
            Batch {stage.batch} of {stage.batches} was refused ({stage.message}): the upload stopped. {stage.batch === 1
              ? "No batch was created."
              : `Batches 1 to ${stage.batch - 1} were created (${count(stage.createdBefore)} contacts).`}
          </p>
          <RefusedTable rows={stage.rows} />
        </div>
      )}
      {failure !== undefined && <FailureView failure={failure} />}
    </form>
  )
}
