/**
 * Test data through the storage ports: a fresh organization per test (no test truncates or
 * shares rows with another), campaigns with unique names, unique phone numbers.
 *
 * @since 0.1.0
 */
import type { NewCampaign } from "@voice-agent/core/Campaign"
import type { NewContact } from "@voice-agent/core/Contact"
import type { OrganizationSettings } from "@voice-agent/core/Organization"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { CampaignRepository } from "@voice-agent/core/ports/CampaignRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { Effect } from "effect"
import { randomBytes, randomInt } from "node:crypto"

/**
 * A random US number in the fictional 555-01XX range's neighbourhood, unique enough that
 * tests never collide on the global `phone_numbers` key (7 random digits).
 *
 * @category constructors
 */
export const randomE164 = (): E164 => {
  // NANP area codes start with 2-9 and are never N11 (211, 911, …), which `normalize` rejects.
  let area = randomInt(200, 1000)
  while (area % 100 === 11) area = randomInt(200, 1000)
  return `+1${area}${randomInt(2_000_000, 10_000_000)}` as E164
}

/**
 * The `index`-th number of a per-test series (`+1202` + 7 digits).
 *
 * @category constructors
 */
export const e164 = (index: number): E164 => `+1202${String(2_000_000 + index).padStart(7, "0")}` as E164

/**
 * @category constructors
 */
export const organization = (settings?: Partial<OrganizationSettings>) =>
  OrganizationRepository.use((organizations) =>
    organizations.create({
      name: `test-${randomBytes(4).toString("hex")}`,
      outboundDialingEnabled: true,
      smsRegistered: true,
      billingIssue: false,
      maxConcurrency: 10,
      ...settings
    })
  )

/**
 * @category constructors
 */
export const newCampaign = (overrides?: Partial<NewCampaign>): NewCampaign => ({
  name: `campaign-${randomBytes(4).toString("hex")}`,
  originPhoneNumbers: [randomE164()],
  startDate: "2026-01-01",
  endDate: null,
  callingWindows: [{ day: 0, start_time: "09:00", end_time: "17:00" }],
  maxAttempts: 3,
  retryDelayS: 3600,
  maxConcurrency: 1,
  timeZone: "America/Los_Angeles",
  description: null,
  ...overrides
})

/**
 * @category constructors
 */
export const campaign = (organizationId: string, overrides?: Partial<NewCampaign>) =>
  CampaignRepository.use((campaigns) => campaigns.create(organizationId, newCampaign(overrides))).pipe(Effect.orDie)

/**
 * @category constructors
 */
export const contact = (phoneNumber: E164, data: NewContact["data"] = {}): NewContact => ({
  phoneNumber,
  data,
  outreachModalities: []
})
