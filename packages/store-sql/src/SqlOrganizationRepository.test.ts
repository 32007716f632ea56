import { assert, describe, layer } from "@effect/vitest"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { Effect, Layer } from "effect"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlOrganizationRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("creates an organization with its settings", () =>
        Effect.gen(function*() {
          const organizations = yield* OrganizationRepository
          const created = yield* organizations.create({
            name: "Acme",
            outboundDialingEnabled: true,
            smsRegistered: false,
            billingIssue: false,
            maxConcurrency: 7
          })
          assert.strictEqual(created.name, "Acme")
          assert.isTrue(created.outboundDialingEnabled)
          assert.isFalse(created.smsRegistered)
          assert.strictEqual(created.maxConcurrency, 7)
          assert.instanceOf(created.createdAt, Date)
          assert.deepStrictEqual(yield* organizations.get(created.id), created)
        }))

      it.effect("updates only the supplied settings", () =>
        Effect.gen(function*() {
          const organizations = yield* OrganizationRepository
          const org = yield* Fixtures.organization({ maxConcurrency: 10 })
          const updated = yield* organizations.update(org.id, { billingIssue: true, maxConcurrency: 3 })
          assert.deepStrictEqual(updated, { ...org, billingIssue: true, maxConcurrency: 3 })
          assert.deepStrictEqual(yield* organizations.update(org.id, {}), updated)
        }))

      it.effect("fails with OrganizationNotFound for an unknown or malformed id", () =>
        Effect.gen(function*() {
          const organizations = yield* OrganizationRepository
          const unknown = "00000000-0000-4000-8000-000000000000"
          assert.strictEqual((yield* Effect.flip(organizations.get(unknown)))._tag, "OrganizationNotFound")
          assert.strictEqual((yield* Effect.flip(organizations.get("not-a-uuid")))._tag, "OrganizationNotFound")
          const error = yield* Effect.flip(organizations.update(unknown, { name: "x" }))
          assert.strictEqual(error.organizationId, unknown)
        }))

      it.effect("counts organizations", () =>
        Effect.gen(function*() {
          const organizations = yield* OrganizationRepository
          const before = yield* organizations.count
          yield* Fixtures.organization()
          assert.strictEqual(yield* organizations.count, before + 1)
        }))
    })
  })
}
