/**
 * DialLoop and its calls' leases under faults, under `TestClock` over the in-memory ports and
 * the real simulated carrier (the loop's other behavior: test/dialer/DialLoop.test.ts). Both
 * found by the fault tests (test/faults): a daemon sent SIGTERM stopped renewing its leases
 * before it drained its calls, so another daemon recovered each call still going once its lease
 * expired (`bot-failure`), and the call's own end was ignored; and a call whose end could not be
 * written (the database restarting) died with its lease in place, which the live loop then
 * renewed for as long as the process lived.
 */
import { assert, describe, it } from "@effect/vitest"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import * as ContactState from "@voice-agent/core/ContactState"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { Clock, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as DialerSettings from "./DialerSettings.ts"
import * as DialLoop from "./DialLoop.ts"
import * as MemoryDialer from "./testing/MemoryDialer.ts"

const SECOND = 1_000
const now = Date.UTC(2026, 0, 5, 15) // a Monday, 15:00 UTC

/** One campaign open all week with one contact: +12025550190 answers and never hangs up. */
const world = (): MemoryDialer.World => {
  const w = MemoryDialer.makeWorld()
  w.organizations.set("org-1", { maxConcurrency: 10, dialingEnabled: true })
  w.campaigns.set("c-1", {
    id: "c-1",
    organizationId: "org-1",
    schedule: {
      windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
      timeZone: "UTC",
      startDate: "2026-01-01",
      endDate: null
    },
    maxAttempts: 3,
    retryDelayS: 3600,
    maxConcurrency: 10,
    enabled: true,
    deleted: false,
    originPhoneNumbers: ["+12025550001" as E164],
    dials: 0
  })
  w.contacts.set("1", {
    id: "1",
    campaignId: "c-1",
    organizationId: "org-1",
    phoneNumber: "+12025550190" as E164,
    data: {},
    state: ContactState.initial(now)
  })
  return w
}

/** Moves the clock in steps of `step`, letting every fiber run between them; `each` after each. */
const advance = (ms: number, each: Effect.Effect<void> = Effect.void, step = 250) =>
  Effect.gen(function*() {
    for (let moved = 0; moved < ms; moved += step) {
      yield* TestClock.adjust(Math.min(step, ms - moved))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      yield* each
    }
  })

describe("DialLoop", () => {
  describe("a store out of reach", () => {
    it.effect("records a call's end once the store answers again, leaving no lease behind", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(now)
        const w = world()
        // The store fails the first three times the call's end is written, as a database being
        // restarted would (the SQL adapters turn that into a defect).
        let failures = 3
        const flaky = Layer.effect(
          DialerRepository,
          Effect.map(DialerRepository, (inner) =>
            DialerRepository.of({
              ...inner,
              endCall: (end) =>
                Effect.suspend(() => failures-- > 0 ? Effect.die(new Error("connection refused")) : inner.endCall(end))
            }))
        ).pipe(Layer.provideMerge(MemoryDialer.layer(w)))
        yield* Layer.build(
          DialLoop.layer(DialerSettings.make("w-1", { drainMs: 0 })).pipe(
            Layer.provide(SimCarrier.layer),
            Layer.provide(flaky)
          )
        )
        // The stand-in hangs up at 8 s after the answer; the end is written after three failed tries.
        yield* advance(20 * SECOND)
        const contact = w.contacts.get("1")!
        assert.strictEqual(failures, -1, "the end was tried four times")
        assert.strictEqual(contact.state.status, "COMPLETED")
        assert.isNull(contact.state.lease)
        assert.strictEqual([...w.conversations.values()][0]?.terminationReason, "bot-hangup")
      }))
  })

  describe("shutdown", () => {
    it.effect("keeps renewing the leases of the calls it drains", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(now)
        const w = world()
        const leaseMs = 3 * SECOND
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(
          DialLoop.layer(DialerSettings.make("w-1", { leaseMs, drainMs: 30 * SECOND })).pipe(
            Layer.provide(SimCarrier.layer),
            Layer.provideMerge(MemoryDialer.layer(w))
          ),
          scope
        )
        yield* advance(2 * SECOND)
        const contact = w.contacts.get("1")!
        assert.isNotNull(contact.state.lease?.conversationId ?? null, "in a call when the shutdown starts")

        // The stand-in hangs up on a person who never does 8 s after the answer: the drain
        // outlasts the lease twice over, and the lease stays live all along.
        const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
        let leaseSeenLive = 0
        let expiredAt: number | undefined
        yield* advance(
          10 * SECOND,
          Effect.gen(function*() {
            const lease = contact.state.lease
            if (lease === null) return
            const at = yield* Clock.currentTimeMillis
            if (lease.expiresAt > at) leaseSeenLive++
            else expiredAt ??= at
          })
        )
        yield* Fiber.join(closing)
        assert.isUndefined(
          expiredAt,
          `the lease expired during the drain, ${(expiredAt ?? now) - now} ms after the start`
        )
        assert.isAbove(leaseSeenLive, (2 * leaseMs) / 250, "the call outlived two leases")
        assert.strictEqual(contact.state.status, "COMPLETED")
        assert.isNull(contact.state.lease)
        const [call] = [...w.conversations.values()]
        assert.strictEqual(call?.terminationReason, "bot-hangup")
      }))
  })
})
