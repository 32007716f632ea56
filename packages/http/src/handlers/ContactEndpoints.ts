/**
 * The contact endpoints' work, shared by the v2 paths and their deprecated v1 twins (which
 * address a campaign by internal id): each is a few lines around ContactService.
 *
 * @since 0.1.0
 */
import type { CampaignRecord } from "@voice-agent/core/Campaign"
import type { ContactData, UploadContactsRequest } from "@voice-agent/core/Contact"
import { toContact } from "@voice-agent/core/Contact"
import { ContactService } from "@voice-agent/core/ContactService"
import { ContactStatus, ContactStatuses } from "@voice-agent/core/ContactState"
import { toContactEligibility } from "@voice-agent/core/Eligibility"
import { InvalidCursor, InvalidParameter, TermsNotAccepted } from "@voice-agent/core/Errors"
import { pageInfo } from "@voice-agent/core/Page"
import { isSerialId } from "@voice-agent/core/SerialId"
import { Effect, Schema } from "effect"
import { UploadRejected } from "../api/ContactsApi.ts"
import { isTruthyQueryValue } from "../api/Params.ts"
import { CurrentOrganization } from "../api/Security.ts"
import { findUnstorable } from "../api/Storable.ts"
import * as CampaignEndpoints from "./CampaignEndpoints.ts"
import type { CampaignRefKind } from "./CampaignEndpoints.ts"
import { CursorCodec } from "./Cursor.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { parseInstant, parseLimit } from "./QueryParams.ts"

const isContactStatus = Schema.is(ContactStatus)

const parseStatuses = (raw: string | ReadonlyArray<string> | undefined) => {
  if (raw === undefined) return Effect.succeed(undefined)
  const values = typeof raw === "string" ? [raw] : raw
  const bad = values.find((v) => !isContactStatus(v))
  return bad === undefined
    ? Effect.succeed(values as ReadonlyArray<ContactStatus>)
    : Effect.fail(
      new InvalidParameter({
        parameter: "status",
        message: `must be one of ${ContactStatuses.join(", ")}, got ${JSON.stringify(bad)}`
      })
    )
}

const parseDataFilter = (raw: string | undefined) => {
  if (raw === undefined) return Effect.succeed(undefined)
  const invalid = new InvalidParameter({ parameter: "data", message: "must be a JSON object" })
  return Effect.try({ try: () => JSON.parse(raw) as unknown, catch: () => invalid }).pipe(
    Effect.flatMap((value) => {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return Effect.fail(invalid)
      // Nothing stored holds what the store cannot keep; such a filter would fail in SQL.
      const unstorable = findUnstorable(value)
      return unstorable === undefined
        ? Effect.succeed(value as ContactData)
        : Effect.fail(new InvalidParameter({ parameter: "data", message: `a value ${unstorable.issue}` }))
    })
  )
}

/**
 * @category models
 */
export interface ContactListParams {
  readonly campaignRef?: string | undefined
  readonly status?: string | ReadonlyArray<string> | undefined
  readonly data?: string | undefined
  readonly attempted_after?: string | undefined
  readonly attempted_before?: string | undefined
  readonly limit?: string | undefined
  readonly after?: string | undefined
}

/**
 * Built once per group; every method runs in a request (it reads CurrentOrganization).
 *
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const campaigns = yield* CampaignEndpoints.make
  const service = yield* ContactService
  const cursors = yield* CursorCodec

  /** Resolves the campaign of a contact path, then runs `f` with it. */
  const withCampaign = <A, E, R>(
    ref: string,
    kind: CampaignRefKind,
    f: (campaign: CampaignRecord) => Effect.Effect<A, E, R>
  ) => Effect.flatMap(campaigns.find(ref, kind), f)

  return {
    withCampaign,
    /** `GET /v2/contacts` (v1 with `campaign_id`): parameters first (400), then the campaign (404). */
    list: (params: ContactListParams, kind: CampaignRefKind) =>
      Effect.gen(function*() {
        const organization = yield* CurrentOrganization
        const statusFilter = yield* parseStatuses(params.status)
        const data = yield* parseDataFilter(params.data)
        const attemptedAfter = yield* parseInstant(params.attempted_after, "attempted_after")
        const attemptedBefore = yield* parseInstant(params.attempted_before, "attempted_before")
        const limit = yield* parseLimit(params.limit, { min: 1, max: 1000, fallback: 100 })
        let afterId: string | undefined
        if (params.after !== undefined) {
          const position = yield* cursors.decode("contacts", organization.id, params.after)
          if (typeof position.id !== "string" || !isSerialId(position.id)) return yield* new InvalidCursor()
          afterId = position.id
        }
        const campaign = params.campaignRef === undefined ? undefined : yield* campaigns.find(params.campaignRef, kind)
        const page = yield* service.list({
          organizationId: organization.id,
          campaignId: campaign?.id,
          statuses: statusFilter,
          data,
          attemptedAfter,
          attemptedBefore,
          limit,
          afterId
        })
        return {
          contacts: page.contacts.map(toContact),
          ...pageInfo(
            page.contacts,
            page.hasMore,
            (last) => cursors.encode("contacts", organization.id, { id: last.id })
          )
        }
      }).pipe(mapDomainErrors),
    /** `POST …/contacts`: terms (400), campaign (404), then the all-or-nothing upload. */
    upload: (
      ref: string,
      kind: CampaignRefKind,
      query: {
        readonly accepted_terms_of_service?: string | undefined
        readonly allow_duplicates?: boolean | undefined
      },
      payload: UploadContactsRequest
    ) =>
      Effect.gen(function*() {
        if (!isTruthyQueryValue(query.accepted_terms_of_service)) return yield* new TermsNotAccepted()
        const campaign = yield* campaigns.find(ref, kind)
        return yield* service.upload(campaign, payload.contacts, {
          acceptedTermsOfService: true,
          allowDuplicates: query.allow_duplicates ?? false
        })
      }).pipe(
        Effect.catchTag("ContactsRejected", (e) =>
          Effect.fail(new UploadRejected({ created: 0, rejected: e.rejected.length, rejected_entries: e.rejected }))),
        mapDomainErrors
      ),
    /** The number is checked before the campaign is looked up (400 before 404). */
    deleteByPhoneNumber: (ref: string, phoneNumber: string) =>
      Effect.gen(function*() {
        yield* service.checkDialableUs(phoneNumber)
        const deleted = yield* withCampaign(
          ref,
          "code",
          (campaign) => service.deleteByPhoneNumber(campaign, phoneNumber)
        )
        return { deleted }
      }).pipe(mapDomainErrors),
    deleteById: (ref: string, contactId: string) =>
      withCampaign(ref, "code", (campaign) => service.deleteById(campaign, contactId)).pipe(
        Effect.as({ deleted: 1 }),
        mapDomainErrors
      ),
    /**
     * `GET …/contacts/{contact_id}/eligibility` (docs/DECISIONS.md, "Extensions"): 404 for the
     * campaign, then the contact.
     */
    eligibility: (ref: string, contactId: string) =>
      withCampaign(ref, "code", (campaign) => service.eligibility(campaign, contactId)).pipe(
        Effect.map(toContactEligibility),
        mapDomainErrors
      )
  }
})
