import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import type { CampaignRecord, CreateCampaignRequest } from "./Campaign.ts"
import { CampaignService } from "./CampaignService.ts"
import type { Organization } from "./Organization.ts"
import type { E164 } from "./PhoneNumber.ts"
import { CampaignRepository } from "./ports/CampaignRepository.ts"
import { ContactRepository } from "./ports/ContactRepository.ts"
import { ConversationRepository } from "./ports/ConversationRepository.ts"
import { DialerWakeup } from "./ports/DialerWakeup.ts"
import { PhoneNumberRepository } from "./ports/PhoneNumberRepository.ts"

const owned = "+12066001234" as E164

const organization: Organization = {
  id: "org-1",
  name: "org",
  outboundDialingEnabled: true,
  smsRegistered: false,
  billingIssue: false,
  maxConcurrency: 5,
  createdAt: new Date(0)
}

const record: CampaignRecord = {
  id: "7d4f3a5e-0000-4000-8000-000000000001",
  code: "gcmp-test",
  organizationId: organization.id,
  name: "test",
  originPhoneNumbers: [owned],
  startDate: "2026-01-01",
  endDate: null,
  callingWindows: [{ day: 0, start_time: "09:00", end_time: "17:00" }],
  maxAttempts: 1,
  retryDelayS: 3600,
  maxConcurrency: 1,
  timeZone: "America/Los_Angeles",
  description: null,
  enabled: true,
  createdAt: new Date(0)
}

const createRequest: CreateCampaignRequest = {
  name: "test",
  origin_phone_numbers: [owned],
  start_date: "2026-01-01",
  calling_windows: [{ day: 0, start_time: "09:00", end_time: "17:00" }]
}

/** A port whose unlisted methods die: each test says which ones it expects to be used. */
const stub = <S extends object>(implemented: Partial<S>): S =>
  new Proxy(implemented, {
    get: (target, key) =>
      key in target
        ? target[key as keyof typeof target]
        : () => Effect.die(new Error(`unexpected call of ${String(key)}`))
  }) as S

/** CampaignService over stub ports holding the one campaign `record`; wake-ups are counted. */
const setup = Effect.gen(function*() {
  const wakeups = yield* Ref.make(0)
  const campaigns = stub<CampaignRepository["Service"]>({
    create: (_organizationId, campaign) => Effect.succeed({ ...record, ...campaign }),
    findByCode: (_organizationId, code) => Effect.succeed(code === record.code ? Option.some(record) : Option.none()),
    findById: () => Effect.succeed(Option.none()),
    update: (_organizationId, _id, patch) => Effect.succeed({ ...record, ...patch })
  })
  const numbers = stub<PhoneNumberRepository["Service"]>({
    findOwned: (organizationId, phoneNumbers) =>
      Effect.succeed(
        phoneNumbers.filter((n) => n === owned).map((phoneNumber) => ({
          organizationId,
          phoneNumber,
          smsEnabled: true
        }))
      )
  })
  const service = yield* Effect.provide(
    Effect.gen(function*() {
      return yield* CampaignService
    }),
    CampaignService.layer.pipe(
      Layer.provide([
        Layer.succeed(CampaignRepository, campaigns),
        Layer.succeed(ContactRepository, stub<ContactRepository["Service"]>({})),
        Layer.succeed(ConversationRepository, stub<ConversationRepository["Service"]>({})),
        Layer.succeed(PhoneNumberRepository, numbers),
        Layer.succeed(DialerWakeup, stub<DialerWakeup["Service"]>({ notify: Ref.update(wakeups, (n) => n + 1) }))
      ])
    )
  )
  return { service, wakeups }
})

describe("CampaignService", () => {
  describe("create", () => {
    it.effect("wakes the dial loops once the campaign is stored", () =>
      Effect.gen(function*() {
        const { service, wakeups } = yield* setup
        const created = yield* service.create(organization, createRequest)
        assert.strictEqual(created.name, "test")
        assert.strictEqual(yield* Ref.get(wakeups), 1)
      }))

    it.effect("a rejected create wakes no one", () =>
      Effect.gen(function*() {
        const { service, wakeups } = yield* setup
        const notOwned = yield* Effect.flip(
          service.create(organization, { ...createRequest, origin_phone_numbers: ["+12066009999"] })
        )
        assert.strictEqual(notOwned._tag, "PhoneNumberNotOwned")
        const overCap = yield* Effect.flip(service.create(organization, { ...createRequest, max_concurrency: 6 }))
        assert.strictEqual(overCap._tag, "ConcurrencyLimitExceeded")
        assert.strictEqual(yield* Ref.get(wakeups), 0)
      }))
  })

  describe("update", () => {
    it.effect("every stored PATCH wakes the dial loops: resume, pause, windows, dates, limits", () =>
      Effect.gen(function*() {
        const { service, wakeups } = yield* setup
        const patches = [
          { enabled: true },
          { enabled: false },
          { calling_windows: [{ day: 1, start_time: "10:00", end_time: "12:00" }] },
          { timezone: "Europe/Berlin" },
          { start_date: "2026-02-01", end_date: "2026-03-01" },
          { max_concurrency: 3, max_attempts: 2 },
          { retry_delay_s: 7200 },
          { description: "only the text" }
        ] as const
        for (const [i, patch] of patches.entries()) {
          yield* service.update(organization, record.code, patch)
          assert.strictEqual(yield* Ref.get(wakeups), i + 1, JSON.stringify(patch))
        }
      }))

    it.effect("a rejected PATCH wakes no one", () =>
      Effect.gen(function*() {
        const { service, wakeups } = yield* setup
        assert.strictEqual((yield* Effect.flip(service.update(organization, record.code, {})))._tag, "NoFieldsToUpdate")
        assert.strictEqual(
          (yield* Effect.flip(service.update(organization, "gcmp-unknown", { enabled: true })))._tag,
          "CampaignNotFound"
        )
        assert.strictEqual(
          (yield* Effect.flip(service.update(organization, record.code, { end_date: "2025-01-01" })))._tag,
          "InvalidParameter"
        )
        assert.strictEqual(yield* Ref.get(wakeups), 0)
      }))
  })
})
