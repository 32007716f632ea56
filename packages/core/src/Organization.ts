/**
 * Organizations (tenants), their settings and their owned phone numbers.
 *
 * Owns: the organization record, its flags (outbound dialing, SMS registration, billing) and
 * the default organization-wide concurrency cap. Does not own API keys' hashing or storage
 * (store-sql) or the admin HTTP shapes (http).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { E164 } from "./PhoneNumber.ts"

/**
 * The organization-wide cap on simultaneous calls when none is set (docs/ADMIN.md).
 *
 * @category constructors
 */
export const DefaultMaxConcurrency = 10

/**
 * @category models
 */
export interface Organization {
  readonly id: string
  readonly name: string
  readonly outboundDialingEnabled: boolean
  readonly smsRegistered: boolean
  readonly billingIssue: boolean
  readonly maxConcurrency: number
  readonly createdAt: Date
}

/**
 * The settable fields of an organization; every field is optional in an update.
 *
 * @category models
 */
export interface OrganizationSettings {
  readonly name: string
  readonly outboundDialingEnabled: boolean
  readonly smsRegistered: boolean
  readonly billingIssue: boolean
  readonly maxConcurrency: number
}

/**
 * @category models
 */
export interface OwnedPhoneNumber {
  readonly organizationId: string
  readonly phoneNumber: E164
  readonly smsEnabled: boolean
}

/**
 * The documented shape of `GET /v1/phone-numbers` entries (docs/DECISIONS.md, "Deprecated v1
 * paths").
 *
 * @category schemas
 */
export const PhoneNumberResource = Schema.Struct({
  phone_number: Schema.String,
  sms_enabled: Schema.Boolean
}).annotate({ identifier: "PhoneNumber" })

/**
 * @category encoding
 */
export const toPhoneNumberResource = (n: OwnedPhoneNumber): typeof PhoneNumberResource.Type => ({
  phone_number: n.phoneNumber,
  sms_enabled: n.smsEnabled
})
