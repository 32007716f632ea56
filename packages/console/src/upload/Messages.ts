/**
 * What the contact-file worker and the page say to each other.
 */
import type { CheckedFile } from "@voice-agent/core/ContactFile"

/**
 * @category models
 */
export interface CheckRequest {
  readonly file: File
  readonly allowDuplicates: boolean
}

/**
 * @category models
 */
export type CheckReply =
  | { readonly _tag: "Progress"; readonly bytes: number; readonly rows: number }
  | { readonly _tag: "Malformed"; readonly row: number | null; readonly message: string }
  | { readonly _tag: "Checked"; readonly file: CheckedFile }
