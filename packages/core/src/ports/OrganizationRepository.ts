/**
 * Storage port for organizations (tenants).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type { OrganizationNotFound } from "../Errors.ts"
import type { Organization, OrganizationSettings } from "../Organization.ts"

/**
 * @category services
 */
export class OrganizationRepository extends Context.Service<OrganizationRepository, {
  readonly create: (settings: OrganizationSettings) => Effect.Effect<Organization>
  /** Changes only the supplied settings. */
  readonly update: (
    id: string,
    patch: Partial<OrganizationSettings>
  ) => Effect.Effect<Organization, OrganizationNotFound>
  readonly get: (id: string) => Effect.Effect<Organization, OrganizationNotFound>
  /**
   * Every organization, oldest first (the admin API's list). Read whole: an installation has
   * one row per tenant.
   */
  readonly list: Effect.Effect<ReadonlyArray<Organization>>
  /** How many organizations exist (the daemon seeds a demo organization when none does). */
  readonly count: Effect.Effect<number>
}>()("@voice-agent/core/ports/OrganizationRepository") {}
