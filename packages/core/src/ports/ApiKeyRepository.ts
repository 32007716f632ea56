/**
 * Storage port for API keys. Keys are stored as hashes only; the plaintext exists once, in
 * the answer to `issue`.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"
import type { ApiKeyNotFound, OrganizationNotFound } from "../Errors.ts"
import type { Organization } from "../Organization.ts"

/**
 * @category models
 */
export interface IssuedApiKey {
  readonly id: string
  /** The plaintext key: shown to the caller once, never stored. */
  readonly apiKey: string
}

/**
 * A key as listed: never its text, which exists only in the answer to `issue`.
 *
 * @category models
 */
export interface ApiKeyInfo {
  readonly id: string
  readonly createdAt: Date
  /** When it was revoked; null while it is live. */
  readonly revokedAt: Date | null
}

/**
 * @category services
 */
export class ApiKeyRepository extends Context.Service<ApiKeyRepository, {
  readonly issue: (organizationId: string) => Effect.Effect<IssuedApiKey, OrganizationNotFound>
  readonly revoke: (organizationId: string, keyId: string) => Effect.Effect<void, ApiKeyNotFound>
  /** The organization's keys, revoked ones too, oldest first; none for an unknown organization. */
  readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<ApiKeyInfo>>
  /** The organization of a live (not revoked) key, if the key is one. */
  readonly authenticate: (apiKey: string) => Effect.Effect<Option.Option<Organization>>
}>()("@voice-agent/core/ports/ApiKeyRepository") {}
