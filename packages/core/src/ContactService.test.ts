import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "@js-temporal/polyfill"
import { Effect, Layer, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import type { CampaignRecord } from "./Campaign.ts"
import { ContactService } from "./ContactService.ts"
import * as ContactState from "./ContactState.ts"
import type { DialingLoad } from "./Eligibility.ts"
import { ContactNotFound } from "./Errors.ts"
import type { E164 } from "./PhoneNumber.ts"
import { ContactRepository } from "./ports/ContactRepository.ts"
import type { ContactInspection } from "./ports/DialerRepository.ts"
import { DialerRepository } from "./ports/DialerRepository.ts"
import { DialerWakeup } from "./ports/DialerWakeup.ts"

const utc = (iso: string): number => Temporal.Instant.from(iso).epochMilliseconds
const HOUR = 3_600_000

// Monday 2026-01-05 10:00 in New York.
const now = utc("2026-01-05T15:00:00Z")

const campaign: CampaignRecord = {
  id: "7d4f3a5e-0000-4000-8000-000000000001",
  code: "gcmp-test",
  organizationId: "org-1",
  name: "test",
  originPhoneNumbers: ["+12066001234" as E164],
  startDate: "2026-01-01",
  endDate: null,
  callingWindows: [0, 1, 2, 3, 4].map((day) => ({ day, start_time: "09:00", end_time: "17:00" })),
  maxAttempts: 3,
  retryDelayS: 3600,
  maxConcurrency: 2,
  timeZone: "America/New_York",
  description: null,
  enabled: true,
  createdAt: new Date(now - 24 * HOUR)
}

const idle: DialingLoad = { campaignActive: 0, campaignMax: 2, organizationActive: 0, organizationMax: 5 }

/** A port whose unlisted methods die: each test says which ones it expects to be used. */
const stub = <S extends object>(implemented: Partial<S>): S =>
  new Proxy(implemented, {
    get: (target, key) =>
      key in target
        ? target[key as keyof typeof target]
        : () => Effect.die(new Error(`unexpected call of ${String(key)}`))
  }) as S

/**
 * ContactService over stub ports: `inspect` answers `inspection` for contact "42" of the
 * campaign (and records its arguments), the contact store accepts uploads, and the wake-ups
 * are counted.
 */
const setup = (inspection: Option.Option<ContactInspection>) =>
  Effect.gen(function*() {
    const wakeups = yield* Ref.make(0)
    const inspected = yield* Ref.make<ReadonlyArray<readonly [string, string, number]>>([])
    const dialer = stub<DialerRepository["Service"]>({
      inspect: (campaignId, contactId, at) =>
        Ref.update(inspected, (calls) => [...calls, [campaignId, contactId, at] as const]).pipe(
          Effect.as(campaignId === campaign.id && contactId === "42" ? inspection : Option.none())
        )
    })
    const contacts = stub<ContactRepository["Service"]>({
      upload: (_campaign, created) => Effect.succeed({ created: created.length }),
      findConflicts: () => Effect.succeed([])
    })
    const wakeup = stub<DialerWakeup["Service"]>({ notify: Ref.update(wakeups, (n) => n + 1) })
    const service = yield* Effect.provide(
      Effect.gen(function*() {
        return yield* ContactService
      }),
      ContactService.layer.pipe(
        Layer.provide([
          Layer.succeed(DialerRepository, dialer),
          Layer.succeed(ContactRepository, contacts),
          Layer.succeed(DialerWakeup, wakeup)
        ])
      )
    )
    return { service, wakeups, inspected }
  })

const inspection = (
  state: ContactState.ContactDialState,
  options: { readonly isOnDnc?: boolean; readonly load?: DialingLoad } = {}
): Option.Option<ContactInspection> =>
  Option.some({ state, isOnDnc: options.isOnDnc ?? false, load: options.load ?? idle })

describe("ContactService", () => {
  describe("eligibility", () => {
    it.effect("explains the inspected contact at the Clock's now, with the campaign's schedule and limits", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(now)
        const { inspected, service } = yield* setup(inspection(ContactState.initial(now - HOUR)))
        assert.deepStrictEqual(yield* service.eligibility(campaign, "42"), {
          callable: true,
          nextEligibleAt: now,
          blockedBy: []
        })
        assert.deepStrictEqual(yield* Ref.get(inspected), [[campaign.id, "42", now]])
      }))

    it.effect("reads enabled, max_attempts, windows and zone from the campaign record", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(now)
        const fresh = ContactState.initial(now - HOUR)
        const { service } = yield* setup(inspection({ ...fresh, attempts: 2 }))
        assert.deepStrictEqual(yield* service.eligibility({ ...campaign, enabled: false }, "42"), {
          callable: false,
          nextEligibleAt: null,
          blockedBy: ["paused"]
        })
        assert.deepStrictEqual((yield* service.eligibility({ ...campaign, maxAttempts: 2 }, "42")).blockedBy, [
          "attempts_exhausted"
        ])
        // 10:00 in New York is 07:00 in Los Angeles: the window opens at 09:00 there (17:00 UTC).
        assert.deepStrictEqual(yield* service.eligibility({ ...campaign, timeZone: "America/Los_Angeles" }, "42"), {
          callable: false,
          nextEligibleAt: utc("2026-01-05T17:00:00Z"),
          blockedBy: ["outside_calling_window"]
        })
      }))

    it.effect("passes on the DNC listing and the load", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(now)
        const onDnc = yield* setup(inspection(ContactState.initial(now), { isOnDnc: true }))
        assert.deepStrictEqual((yield* onDnc.service.eligibility(campaign, "42")).blockedBy, ["do_not_call"])
        const full = yield* setup(inspection(ContactState.initial(now), { load: { ...idle, organizationActive: 5 } }))
        assert.deepStrictEqual(yield* full.service.eligibility(campaign, "42"), {
          callable: false,
          nextEligibleAt: now,
          blockedBy: ["organization_concurrency_full"]
        })
      }))

    it.effect("a contact the store does not find in the campaign: ContactNotFound", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(now)
        const { service } = yield* setup(inspection(ContactState.initial(now)))
        for (const contactId of ["43", "abc"]) {
          const error = yield* Effect.flip(service.eligibility(campaign, contactId))
          assert.deepStrictEqual(error, new ContactNotFound({ contactRef: contactId }))
        }
        const other = yield* Effect.flip(service.eligibility({ ...campaign, id: "another" }, "42"))
        assert.strictEqual(other._tag, "ContactNotFound")
      }))
  })

  describe("upload", () => {
    const options = { acceptedTermsOfService: true, allowDuplicates: false }

    it.effect("wakes the dial loops once the contacts are stored", () =>
      Effect.gen(function*() {
        const { service, wakeups } = yield* setup(Option.none())
        const result = yield* service.upload(campaign, [{ phone_number: "+12066001234" }, {
          phone_number: "+12066001235"
        }], options)
        assert.deepStrictEqual(result, { created: 2 })
        assert.strictEqual(yield* Ref.get(wakeups), 1)
      }))

    it.effect("wakes no one when nothing was stored: terms not accepted, rejected entries, an empty upload", () =>
      Effect.gen(function*() {
        const { service, wakeups } = yield* setup(Option.none())
        const terms = yield* Effect.flip(
          service.upload(campaign, [{ phone_number: "+12066001234" }], { ...options, acceptedTermsOfService: false })
        )
        assert.strictEqual(terms._tag, "TermsNotAccepted")
        const rejected = yield* Effect.flip(service.upload(campaign, [{ phone_number: "not a number" }], options))
        assert.strictEqual(rejected._tag, "ContactsRejected")
        assert.deepStrictEqual(yield* service.upload(campaign, [], options), { created: 0 })
        assert.strictEqual(yield* Ref.get(wakeups), 0)
      }))
  })
})
