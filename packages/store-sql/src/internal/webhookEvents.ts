/**
 * What the dialer's and the DNC sweep's statements need to write webhook events in their own
 * transactions (sql/enqueueWebhookEvents): the conversation columns a statement returns to
 * build `call.started` / `call.ended` from (as ConversationRepository reads them), and the
 * `contact.status_changed` of a contact whose status a transition moved.
 */
import type { ContactData } from "@voice-agent/core/Contact"
import type { ContactStatus } from "@voice-agent/core/ContactState"
import type { OutgoingEvent } from "@voice-agent/core/Webhook"
import { contactStatusChanged } from "@voice-agent/core/Webhook"

/** The columns of `ConversationRow` (SqlConversationRepository) of `conversations`, as SQL text. */
export const conversationColumns =
  `id::text AS "id", call_id AS "callId", organization_id::text AS "organizationId", ` +
  `campaign_id::text AS "campaignId", contact_id::text AS "contactId", direction AS "direction", ` +
  `from_number AS "fromNumber", to_number AS "toNumber", started_at AS "startedAt", ` +
  `answered_at AS "answeredAt", ended_at AS "endedAt", duration_sec AS "durationSec", ` +
  `termination_reason AS "terminationReason"`

/** A contact as `contact.status_changed` shows it. */
export interface ContactOfEvent {
  readonly id: string
  readonly campaignId: string
  readonly organizationId: string
  readonly phoneNumber: string
  readonly data: ContactData
}

/** `contact.status_changed` when `before` and `after` differ; nothing otherwise. */
export const statusChanged = (
  contact: ContactOfEvent,
  before: ContactStatus,
  after: ContactStatus
): ReadonlyArray<OutgoingEvent> =>
  before === after ? [] : [contactStatusChanged({ ...contact, previousStatus: before, status: after })]
