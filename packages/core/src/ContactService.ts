/**
 * Contact use cases against the storage ports: upload (all or nothing), list, delete, and the
 * eligibility explainer (docs/DECISIONS.md, "Extensions").
 *
 * An upload is checked in two passes: the storage-free rules (ContactUpload) and then, in the
 * store's one transaction, the Do-Not-Call list and the campaign's existing numbers. When the
 * first pass already rejects entries, nothing is inserted, and the store's conflicts for the
 * remaining numbers are looked up in one query, so one answer lists every rejection. A stored
 * upload wakes the dial loops (DialerWakeup).
 *
 * Eligibility reads the contact's dialing state, DNC listing and the load on its caps in one
 * look (DialerRepository `inspect`) and explains it with Eligibility at the `Clock`'s now: the
 * same predicate the dialer's claim uses.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Result } from "effect"
import type { CampaignRecord } from "./Campaign.ts"
import { callingSchedule } from "./Campaign.ts"
import type { ContactUploadEntry } from "./Contact.ts"
import { prepareUpload } from "./ContactUpload.ts"
import type { Eligibility } from "./Eligibility.ts"
import { explain } from "./Eligibility.ts"
import type { ContactBusy } from "./Errors.ts"
import { ContactNotFound, ContactsRejected, InvalidPhoneNumber, TermsNotAccepted } from "./Errors.ts"
import * as PhoneNumber from "./PhoneNumber.ts"
import type { ContactPage, ContactQuery } from "./ports/ContactRepository.ts"
import { ContactRepository } from "./ports/ContactRepository.ts"
import { DialerRepository } from "./ports/DialerRepository.ts"
import { DialerWakeup } from "./ports/DialerWakeup.ts"
import { nowDate, nowMillis } from "./Time.ts"

/**
 * @category services
 */
export class ContactService extends Context.Service<ContactService, {
  readonly upload: (
    campaign: CampaignRecord,
    entries: ReadonlyArray<ContactUploadEntry>,
    options: { readonly acceptedTermsOfService: boolean; readonly allowDuplicates: boolean }
  ) => Effect.Effect<{ readonly created: number }, TermsNotAccepted | ContactsRejected>
  readonly list: (query: ContactQuery) => Effect.Effect<ContactPage>
  /** Fails unless `phoneNumber` (as the user typed it) is a valid, dialable US number. */
  readonly checkDialableUs: (phoneNumber: string) => Effect.Effect<PhoneNumber.E164, InvalidPhoneNumber>
  /** `phoneNumber` as the user typed it: must be a valid, dialable US number. */
  readonly deleteByPhoneNumber: (
    campaign: CampaignRecord,
    phoneNumber: string
  ) => Effect.Effect<number, InvalidPhoneNumber | ContactNotFound | ContactBusy>
  readonly deleteById: (
    campaign: CampaignRecord,
    contactId: string
  ) => Effect.Effect<void, ContactNotFound | ContactBusy>
  /** Why the campaign's contact is or is not callable now, and when it will be. */
  readonly eligibility: (campaign: CampaignRecord, contactId: string) => Effect.Effect<Eligibility, ContactNotFound>
}>()("@voice-agent/core/ContactService") {
  static readonly layer = Layer.effect(
    ContactService,
    Effect.gen(function*() {
      const contacts = yield* ContactRepository
      const dialer = yield* DialerRepository
      const wakeup = yield* DialerWakeup
      const checkDialableUs = (phoneNumber: string) => {
        const normalized = PhoneNumber.normalizeDialableUs(phoneNumber)
        return Result.isFailure(normalized)
          ? Effect.fail(new InvalidPhoneNumber({ phoneNumber, message: normalized.failure }))
          : Effect.succeed(normalized.success)
      }
      return ContactService.of({
        checkDialableUs,
        upload: Effect.fn("ContactService.upload")(function*(campaign, entries, options) {
          if (!options.acceptedTermsOfService) return yield* new TermsNotAccepted()
          const prepared = prepareUpload(entries, { allowDuplicates: options.allowDuplicates })
          if (prepared.rejected.length > 0) {
            const conflicts = yield* contacts.findConflicts(
              campaign,
              prepared.contacts.map((c) => c.phoneNumber),
              { allowDuplicates: options.allowDuplicates }
            )
            return yield* new ContactsRejected({ rejected: [...prepared.rejected, ...conflicts] })
          }
          if (prepared.contacts.length === 0) return { created: 0 }
          const now = yield* nowDate
          const created = yield* contacts.upload(campaign, prepared.contacts, {
            allowDuplicates: options.allowDuplicates,
            now
          })
          yield* wakeup.notify
          return created
        }),
        list: Effect.fn("ContactService.list")((query) => contacts.list(query)),
        deleteByPhoneNumber: Effect.fn("ContactService.deleteByPhoneNumber")(function*(campaign, phoneNumber) {
          const normalized = yield* checkDialableUs(phoneNumber)
          return yield* contacts.deleteByPhoneNumber(campaign.id, normalized, yield* nowMillis)
        }),
        deleteById: Effect.fn("ContactService.deleteById")(function*(campaign, contactId) {
          return yield* contacts.deleteById(campaign.id, contactId, yield* nowMillis)
        }),
        eligibility: Effect.fn("ContactService.eligibility")(function*(campaign, contactId) {
          const now = yield* nowMillis
          const inspection = yield* dialer.inspect(campaign.id, contactId, now)
          if (Option.isNone(inspection)) return yield* new ContactNotFound({ contactRef: contactId })
          const { isOnDnc, load, state } = inspection.value
          // A campaign that a lookup found is not deleted.
          const dialing = {
            enabled: campaign.enabled,
            deleted: false,
            maxAttempts: campaign.maxAttempts,
            schedule: callingSchedule(campaign)
          }
          return explain(state, dialing, isOnDnc, load, now)
        })
      })
    })
  )
}
