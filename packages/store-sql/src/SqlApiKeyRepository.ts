/**
 * ApiKeyRepository on SQL (table `api_keys`).
 *
 * Owns: the key format (`va_` + 32 random bytes, base64url) and its storage as a SHA-256 hex
 * digest. The plaintext exists only in the answer to `issue`. A fast hash is the right one
 * here: the key carries 256 random bits, so there is nothing to brute-force, and
 * authentication stays one lookup on the unique `key_hash` index.
 *
 * @since 0.1.0
 */
import { ApiKeyNotFound, OrganizationNotFound } from "@voice-agent/core/Errors"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"
import { organizationColumns, OrganizationRow } from "./SqlOrganizationRepository.ts"

/**
 * Prefix of every API key, so that leaked keys are recognizable (secret scanners).
 *
 * @category constructors
 */
export const apiKeyPrefix = "va_"

/**
 * The stored form of a key: lowercase hex SHA-256 of its UTF-8 text.
 *
 * @category encoding
 */
export const hashApiKey = (apiKey: string): string => createHash("sha256").update(apiKey, "utf8").digest("hex")

const generateApiKey = (): string => apiKeyPrefix + randomBytes(32).toString("base64url")

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Inserts only when the organization exists, so a missing one is "no row", not a
  // foreign-key error to pick apart.
  const insert = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, keyHash: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ keyHash, organizationId }) =>
      sql`
        INSERT INTO api_keys (organization_id, key_hash)
        SELECT o.id, ${keyHash} FROM organizations o WHERE o.id = ${organizationId}
        RETURNING id::text AS "id"`
  })

  const revokeLive = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, keyId: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ keyId, organizationId }) =>
      sql`
        UPDATE api_keys SET revoked_at = now()
        WHERE id = ${keyId} AND organization_id = ${organizationId} AND revoked_at IS NULL
        RETURNING id::text AS "id"`
  })

  // No index on organization_id: the table has one row per key ever issued (an installation's
  // tenants times their rotations), read whole for this admin list.
  const listByOrganization = SqlSchema.findAll({
    Request: Schema.String,
    Result: Schema.Struct({ id: Schema.String, createdAt: Schema.Date, revokedAt: Schema.NullOr(Schema.Date) }),
    execute: (organizationId) =>
      sql`
        SELECT id::text AS "id", created_at AS "createdAt", revoked_at AS "revokedAt"
        FROM api_keys WHERE organization_id = ${organizationId}
        ORDER BY created_at, id`
  })

  const findByHash = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ ...OrganizationRow.fields, keyHash: Schema.String }),
    execute: (keyHash) =>
      sql`
        SELECT ${organizationColumns(sql, "o")}, k.key_hash AS "keyHash"
        FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE k.key_hash = ${keyHash} AND k.revoked_at IS NULL`
  })

  // The index finds the row by hash; the stored hash is then compared to the presented one in
  // constant time, so whether a key matched never depends on how the database compared text.
  const matches = (stored: string, presented: string): boolean => {
    const a = Buffer.from(stored, "hex")
    const b = Buffer.from(presented, "hex")
    return a.length === b.length && timingSafeEqual(a, b)
  }

  return ApiKeyRepository.of({
    issue: Effect.fn("ApiKeyRepository.issue")(function*(organizationId: string) {
      const apiKey = generateApiKey()
      const row = isUuid(organizationId)
        ? yield* insert({ organizationId, keyHash: hashApiKey(apiKey) })
        : Option.none()
      if (Option.isNone(row)) return yield* new OrganizationNotFound({ organizationId })
      return { id: row.value.id, apiKey }
    }, orDieInfrastructure),
    revoke: Effect.fn("ApiKeyRepository.revoke")(function*(organizationId: string, keyId: string) {
      const row = isUuid(organizationId) && isUuid(keyId) ? yield* revokeLive({ organizationId, keyId }) : Option.none()
      if (Option.isNone(row)) return yield* new ApiKeyNotFound({ keyId })
    }, orDieInfrastructure),
    list: Effect.fn("ApiKeyRepository.list")(
      (organizationId: string) => isUuid(organizationId) ? listByOrganization(organizationId) : Effect.succeed([]),
      orDieInfrastructure
    ),
    authenticate: Effect.fn("ApiKeyRepository.authenticate")(
      function*(apiKey: string) {
        const presented = hashApiKey(apiKey)
        const row = yield* findByHash(presented)
        if (Option.isNone(row) || !matches(row.value.keyHash, presented)) return Option.none()
        const { keyHash: _, ...organization } = row.value
        return Option.some(organization)
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(ApiKeyRepository, make)
