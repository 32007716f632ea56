/**
 * Outbound calling campaigns: the stored record, the documented resource and the create and
 * update request bodies of the documented API (docs/HTTP_API.md), with their defaults and limits.
 *
 * Owns: field rules that need no I/O (name length, retry delay range, date format, windows,
 * timezone). Does not own rules that need the organization's data (origin numbers owned,
 * `max_concurrency` under the organization's cap, unique names): CampaignService checks those.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CalendarDate } from "./CalendarDate.ts"
import type { CallingSchedule } from "./CallingSchedule.ts"
import { CallingWindow, CallingWindowInput, recommendedRangeWarning } from "./CallingWindow.ts"
import type { E164 } from "./PhoneNumber.ts"
import { toIso } from "./Time.ts"
import { TimeZone } from "./Timezone.ts"

/**
 * Defaults and limits of the documented API (docs/DECISIONS.md, "Campaigns").
 *
 * @category constructors
 */
export const CampaignDefaults = {
  maxAttempts: 1,
  retryDelayS: 3600,
  maxConcurrency: 1,
  timeZone: "America/Los_Angeles"
} as const

/**
 * @category constructors
 */
export const CampaignLimits = {
  nameMaxLength: 200,
  retryDelayMinS: 3600,
  retryDelayMaxS: 2_592_000,
  /** Not set by the documented API; 100 attempts per contact is beyond any sane retry policy. */
  maxAttempts: 100
} as const

/**
 * Prefix of every public campaign code.
 *
 * @category constructors
 */
export const CampaignCodePrefix = "gcmp-"

/**
 * The stored campaign. `deletedAt` is not here: repositories never return deleted campaigns.
 *
 * @category models
 */
export interface CampaignRecord {
  readonly id: string
  readonly code: string
  readonly organizationId: string
  readonly name: string
  readonly originPhoneNumbers: ReadonlyArray<E164>
  readonly startDate: string
  readonly endDate: string | null
  readonly callingWindows: ReadonlyArray<CallingWindow>
  readonly maxAttempts: number
  readonly retryDelayS: number
  readonly maxConcurrency: number
  readonly timeZone: string
  readonly description: string | null
  readonly enabled: boolean
  readonly createdAt: Date
}

/**
 * The campaign's windows, zone and dates, as the scheduling math reads them.
 *
 * @category constructors
 */
export const callingSchedule = (record: CampaignRecord): CallingSchedule => ({
  windows: record.callingWindows,
  timeZone: record.timeZone,
  startDate: record.startDate,
  endDate: record.endDate
})

/**
 * The fields a new campaign is stored with (validated, normalized, defaults applied).
 *
 * @category models
 */
export type NewCampaign = Omit<CampaignRecord, "id" | "code" | "organizationId" | "createdAt" | "enabled">

/**
 * A validated change to a campaign: only the supplied fields.
 *
 * @category models
 */
export type CampaignPatch = Partial<Omit<CampaignRecord, "id" | "code" | "organizationId" | "createdAt">>

/**
 * @category schemas
 */
export const CampaignName = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxLength(CampaignLimits.nameMaxLength),
  Schema.makeFilter((s: string) => s.trim().length > 0 || "Expected a name that is not only white space")
)

/**
 * @category schemas
 */
export const MaxAttempts = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: CampaignLimits.maxAttempts }))

/**
 * @category schemas
 */
export const RetryDelaySeconds = Schema.Int.check(
  Schema.isBetween({ minimum: CampaignLimits.retryDelayMinS, maximum: CampaignLimits.retryDelayMaxS })
)

/**
 * @category schemas
 */
export const MaxConcurrency = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

const OriginPhoneNumbers = Schema.Array(Schema.String).check(Schema.isMinLength(1))
const CallingWindows = Schema.Array(CallingWindowInput).check(Schema.isMinLength(1))

/**
 * Body of `POST /v2/campaigns`. Origin numbers stay strings here: an unparsable one is a
 * 400 (docs/DECISIONS.md, "Campaigns"), not a validation error, so CampaignService normalizes them.
 * `null` for an optional field means absent, as real clients send it.
 *
 * @category schemas
 */
export const CreateCampaignRequest = Schema.Struct({
  name: CampaignName,
  origin_phone_numbers: OriginPhoneNumbers,
  start_date: CalendarDate,
  calling_windows: CallingWindows,
  max_attempts: Schema.optionalKey(Schema.NullOr(MaxAttempts)),
  retry_delay_s: Schema.optionalKey(Schema.NullOr(RetryDelaySeconds)),
  max_concurrency: Schema.optionalKey(Schema.NullOr(MaxConcurrency)),
  timezone: Schema.optionalKey(Schema.NullOr(TimeZone)),
  end_date: Schema.optionalKey(Schema.NullOr(CalendarDate)),
  description: Schema.optionalKey(Schema.NullOr(Schema.String))
}).check(
  Schema.makeFilter((body) =>
    body.end_date == null || body.end_date >= body.start_date
      ? undefined
      : { path: ["end_date"], issue: "end_date must not be before start_date" }
  )
).annotate({ identifier: "CreateCampaignRequest" })

/**
 * @category models
 */
export type CreateCampaignRequest = typeof CreateCampaignRequest.Type

/**
 * Body of `PATCH /v2/campaigns/{campaign_code}`: every field optional; `end_date: null` and
 * `description: null` clear the value.
 *
 * @category schemas
 */
export const UpdateCampaignRequest = Schema.Struct({
  enabled: Schema.optionalKey(Schema.Boolean),
  name: Schema.optionalKey(CampaignName),
  origin_phone_numbers: Schema.optionalKey(OriginPhoneNumbers),
  start_date: Schema.optionalKey(CalendarDate),
  end_date: Schema.optionalKey(Schema.NullOr(CalendarDate)),
  calling_windows: Schema.optionalKey(CallingWindows),
  max_attempts: Schema.optionalKey(MaxAttempts),
  retry_delay_s: Schema.optionalKey(RetryDelaySeconds),
  max_concurrency: Schema.optionalKey(MaxConcurrency),
  timezone: Schema.optionalKey(TimeZone),
  description: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "UpdateCampaignRequest" })

/**
 * @category models
 */
export type UpdateCampaignRequest = typeof UpdateCampaignRequest.Type

/**
 * The Campaign resource of the documented API, plus `enabled` (docs/DECISIONS.md, "Campaigns").
 *
 * @category schemas
 */
export const Campaign = Schema.Struct({
  id: Schema.String,
  campaign_code: Schema.String,
  name: Schema.String,
  origin_phone_numbers: Schema.Array(Schema.String),
  start_date: Schema.String,
  end_date: Schema.NullOr(Schema.String),
  calling_windows: Schema.Array(CallingWindow),
  max_attempts: Schema.Int,
  retry_delay_s: Schema.Int,
  max_concurrency: Schema.Int,
  timezone: Schema.String,
  description: Schema.NullOr(Schema.String),
  created_datetime: Schema.String,
  enabled: Schema.Boolean,
  warning: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Campaign" })

/**
 * @category models
 */
export type Campaign = typeof Campaign.Type

/**
 * The resource for a record. `withWarning` adds the recommended-range warning of the
 * create and update responses.
 *
 * @category encoding
 */
export const toCampaign = (record: CampaignRecord, options?: { readonly withWarning?: boolean }): Campaign => {
  const campaign: Campaign = {
    id: record.id,
    campaign_code: record.code,
    name: record.name,
    origin_phone_numbers: record.originPhoneNumbers,
    start_date: record.startDate,
    end_date: record.endDate,
    calling_windows: record.callingWindows,
    max_attempts: record.maxAttempts,
    retry_delay_s: record.retryDelayS,
    max_concurrency: record.maxConcurrency,
    timezone: record.timeZone,
    description: record.description,
    created_datetime: toIso(record.createdAt),
    enabled: record.enabled
  }
  const warning = options?.withWarning === true ? recommendedRangeWarning(record.callingWindows) : undefined
  return warning === undefined ? campaign : { ...campaign, warning }
}

/**
 * @category schemas
 */
export const CampaignStatusCounts = Schema.Struct({
  TRYING: Schema.Int,
  COMPLETED: Schema.Int,
  PARTIALLY_COMPLETED: Schema.Int,
  FAILED: Schema.Int
}).annotate({ identifier: "CampaignStatusCounts" })

/**
 * @category models
 */
export type CampaignStatusCounts = typeof CampaignStatusCounts.Type

/**
 * Response of `GET /v2/campaigns/{campaign_code}/status`.
 *
 * @category schemas
 */
export const CampaignStatus = Schema.Struct({
  campaign: Schema.String,
  status_counts: CampaignStatusCounts
}).annotate({ identifier: "CampaignStatus" })

/**
 * Response of `GET /v2/campaigns/{campaign_code}/has-callable-contacts`.
 *
 * @category schemas
 */
export const HasCallableContacts = Schema.Struct({
  has_callable_contacts: Schema.Boolean
}).annotate({ identifier: "HasCallableContacts" })

/**
 * Response of `DELETE /v2/campaigns/{campaign_code}`.
 *
 * @category schemas
 */
export const DeleteCampaignResponse = Schema.Struct({
  ok: Schema.Boolean
}).annotate({ identifier: "DeleteCampaignResponse" })
