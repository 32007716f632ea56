/**
 * Opaque keyset cursors (`next_cursor`, `after`): a base64url JSON position plus an
 * HMAC-SHA256 tag over the list's kind, the organization and the position, keyed by the
 * installation's cursor key. A cursor that is malformed, altered, or issued for another list
 * or organization fails with `InvalidCursor` (400).
 *
 * @since 0.1.0
 */
import { InvalidCursor } from "@voice-agent/core/Errors"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { Context, Effect, Layer } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * @category models
 */
export type CursorKind = "contacts" | "conversations" | "webhook-deliveries" | "agents" | "dnc"

const tagLength = 16

/**
 * @category services
 */
export class CursorCodec extends Context.Service<CursorCodec, {
  readonly encode: (kind: CursorKind, organizationId: string, position: Record<string, string | number>) => string
  readonly decode: (
    kind: CursorKind,
    organizationId: string,
    cursor: string
  ) => Effect.Effect<Record<string, unknown>, InvalidCursor>
}>()("@voice-agent/http/handlers/Cursor/CursorCodec") {
  static readonly layer = Layer.effect(
    CursorCodec,
    Effect.gen(function*() {
      const key = yield* (yield* ServerSecrets).cursorKey
      const tag = (kind: CursorKind, organizationId: string, payload: string) =>
        createHmac("sha256", key).update(`${kind}\n${organizationId}\n${payload}`).digest().subarray(0, tagLength)
      return CursorCodec.of({
        encode: (kind, organizationId, position) => {
          const payload = Buffer.from(JSON.stringify(position)).toString("base64url")
          return `${payload}.${tag(kind, organizationId, payload).toString("base64url")}`
        },
        decode: (kind, organizationId, cursor) => {
          const [payload, signature, ...rest] = cursor.split(".")
          if (payload === undefined || signature === undefined || rest.length > 0) {
            return Effect.fail(new InvalidCursor())
          }
          const given = Buffer.from(signature, "base64url")
          const expected = tag(kind, organizationId, payload)
          // Canonical encoding only: base64 ignores the last character's spare bits (and stray
          // characters), so an altered cursor could otherwise decode to the same tag.
          if (
            given.length !== expected.length || given.toString("base64url") !== signature ||
            !timingSafeEqual(given, expected)
          ) {
            return Effect.fail(new InvalidCursor())
          }
          return Effect.try({
            try: () => JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown,
            catch: () => new InvalidCursor()
          }).pipe(
            Effect.flatMap((value) =>
              typeof value === "object" && value !== null && !Array.isArray(value)
                ? Effect.succeed(value as Record<string, unknown>)
                : Effect.fail(new InvalidCursor())
            )
          )
        }
      })
    })
  )
}
