/**
 * The voice-agent engine embedded in a Node program, with no HTTP in between: an
 * organization and its number through the storage ports, then a campaign, an upload and the
 * campaign's status through the core services — the same services the daemon's HTTP API uses.
 */
import { CampaignService } from "@voice-agent/core/CampaignService"
import { ContactService } from "@voice-agent/core/ContactService"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import { Effect, Layer } from "effect"

/** Creates a campaign, uploads three contacts (one twice), and reads the campaign's status. */
export const program = Effect.gen(function*() {
  const organizations = yield* OrganizationRepository
  const numbers = yield* PhoneNumberRepository
  const campaigns = yield* CampaignService
  const contacts = yield* ContactService

  const organization = yield* organizations.create({
    name: "Acme Clinics",
    outboundDialingEnabled: true,
    smsRegistered: true,
    billingIssue: false,
    maxConcurrency: 5
  })
  yield* numbers.add(organization.id, { phoneNumber: "+12025550100" as E164, smsEnabled: true })

  const campaign = yield* campaigns.create(organization, {
    name: "Flu shot reminders",
    origin_phone_numbers: ["(202) 555-0100"],
    start_date: "2026-11-01",
    calling_windows: [{ day: 0, start_time: "09:00", end_time: "17:00" }],
    max_attempts: 3,
    timezone: "America/New_York"
  })

  const uploaded = yield* contacts.upload(
    campaign,
    [
      { phone_number: "202-555-0123", data: { first_name: "Ann" } },
      { phone_number: "+1 202 555 0124", data: { first_name: "Bo" } }
    ],
    { acceptedTermsOfService: true, allowDuplicates: false }
  )
  // Uploads are all or nothing: a number already in the campaign rejects the whole request.
  const rejected = yield* contacts.upload(
    campaign,
    [{ phone_number: "+12025550125" }, { phone_number: "(202) 555-0123" }],
    { acceptedTermsOfService: true, allowDuplicates: false }
  ).pipe(Effect.flip)

  const status = yield* campaigns.statusCounts(campaign)
  return { campaign, created: uploaded.created, rejected, status }
})

/** The core services over the SQL store, on the embedded PostgreSQL (in memory here). */
export const EngineLive = Layer.mergeAll(CampaignService.layer, ContactService.layer).pipe(
  Layer.provideMerge(SqlStorage.layer),
  Layer.provide(Database.layerPglite(Database.memory))
)
