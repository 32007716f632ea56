/**
 * The first-start demo organization (docs/DAEMON.md): on an empty database, with the admin API
 * disabled (no `VOICE_AGENT_ADMIN_TOKEN`), the daemon creates the organization `demo` (outbound
 * dialing and SMS enabled), gives it one number of the simulated carrier, and issues a key. The
 * key is shown once, by the ready announcement (Ready.ts); only its hash is stored.
 *
 * With an admin token set the operator creates organizations through the admin API instead.
 * The check and the inserts run in one transaction under an advisory lock, so several daemons
 * starting together on one PostgreSQL create one demo organization, not several.
 *
 * @since 0.1.0
 */
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { organizationDefaults } from "@voice-agent/http/api/AdminApi"
import { AdminToken } from "@voice-agent/http/handlers/Admin"
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The demo number: in the simulated carrier's "answers and talks" range (packages/carrier-sim/README.md).
 *
 * @category constructors
 */
export const demoPhoneNumber = "+12025550100" as E164

/**
 * @category models
 */
export interface DemoOrganization {
  readonly organizationId: string
  readonly keyId: string
  readonly apiKey: string
  readonly phoneNumber: E164
}

// An arbitrary constant naming "the demo seed" among PostgreSQL advisory locks.
const seedLockId = 7_424_190_001

/**
 * What this start seeded: the demo organization and its plaintext key, or nothing.
 *
 * @category services
 */
export class DemoSeed extends Context.Service<DemoSeed, Option.Option<DemoOrganization>>()(
  "voice-agent/DemoSeed"
) {
  static readonly layer = Layer.effect(
    DemoSeed,
    Effect.gen(function*() {
      const token = yield* AdminToken
      if (Option.isSome(token)) return Option.none()
      const sql = yield* SqlClient.SqlClient
      const organizations = yield* OrganizationRepository
      const numbers = yield* PhoneNumberRepository
      const keys = yield* ApiKeyRepository
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${seedLockId})`
        if ((yield* organizations.count) > 0) return Option.none()
        const organization = yield* organizations.create({ ...organizationDefaults, name: "demo" })
        yield* numbers.add(organization.id, { phoneNumber: demoPhoneNumber, smsEnabled: true })
        const key = yield* keys.issue(organization.id)
        return Option.some<DemoOrganization>({
          organizationId: organization.id,
          keyId: key.id,
          apiKey: key.apiKey,
          phoneNumber: demoPhoneNumber
        })
      }))
    }).pipe(Effect.orDie, Effect.withSpan("DemoSeed.seed"))
  )
}
