/**
 * Port for secrets that belong to the installation rather than to a tenant, shared by every
 * daemon on one database (so a cursor issued by one daemon is accepted by the next).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"

/**
 * @category services
 */
export class ServerSecrets extends Context.Service<ServerSecrets, {
  /** Key that signs list cursors (at least 32 bytes, created once per installation). */
  readonly cursorKey: Effect.Effect<Uint8Array>
}>()("@voice-agent/core/ports/ServerSecrets") {}
