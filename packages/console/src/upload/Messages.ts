/**
 * What the upload worker and the page say to each other. The checked file stays in the worker:
 * the page gets its summary and the refused rows, then asks the worker to send it.
 */
import type { RefusedRow } from "@voice-agent/core/ContactFile"
import type { Failure } from "../api/Failure.ts"

/**
 * @category models
 */
export type UploadRequest =
  | { readonly _tag: "Check"; readonly file: File; readonly allowDuplicates: boolean }
  | {
    readonly _tag: "Send"
    /** The API key (kept in the worker's memory for this upload only). */
    readonly token: string
    readonly baseUrl: string
    readonly campaignCode: string
    readonly allowDuplicates: boolean
  }

/**
 * @category models
 */
export type UploadReply =
  | { readonly _tag: "Reading"; readonly bytes: number; readonly rows: number }
  | { readonly _tag: "Malformed"; readonly row: number | null; readonly message: string }
  | {
    readonly _tag: "Checked"
    readonly rows: number
    readonly accepted: number
    readonly batches: number
    readonly refused: ReadonlyArray<RefusedRow>
  }
  | { readonly _tag: "Sent"; readonly batch: number; readonly created: number }
  | {
    readonly _tag: "BatchRefused"
    readonly batch: number
    readonly createdBefore: number
    readonly rows: ReadonlyArray<RefusedRow>
    readonly message: string
  }
  | { readonly _tag: "Failed"; readonly failure: Failure }
  | { readonly _tag: "Done"; readonly created: number }
