/**
 * The registry of schema migrations and the migrator that applies them.
 *
 * Owns: the ordered record of migrations (`NNNN_name` → module under `migrations/`). Every
 * migration is forward-only and never edited once merged; add a new file and a line here.
 * Pending migrations run in id order inside one transaction, serialized across processes by
 * the migrator's table lock, so several daemons starting on one PostgreSQL apply each once.
 *
 * @since 0.1.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { PgMigrator } from "@effect/sql-pg"
import type { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import initial from "./migrations/0001_initial.ts"
import serverSecrets from "./migrations/0002_server_secrets.ts"
import dialer from "./migrations/0003_dialer.ts"
import agentEvents from "./migrations/0004_agent_events.ts"
import recordings from "./migrations/0005_recordings.ts"
import webhooks from "./migrations/0006_webhooks.ts"
import carrierMessageIds from "./migrations/0007_carrier_message_ids.ts"
import openInboundCalls from "./migrations/0008_open_inbound_calls.ts"
import agents from "./migrations/0009_agents.ts"
import mediaStreams from "./migrations/0010_media_streams.ts"
import webhookAttempts from "./migrations/0011_webhook_attempts.ts"
import lostCallRecordings from "./migrations/0012_lost_call_recordings.ts"
import carrierCalls from "./migrations/0013_carrier_calls.ts"
import listenTickets from "./migrations/0014_listen_tickets.ts"
import apiKeysByOrganization from "./migrations/0015_api_keys_by_organization.ts"
import openDirectCalls from "./migrations/0016_open_direct_calls.ts"
import turnLatencies from "./migrations/0017_turn_latencies.ts"
import turnLatenciesByCampaign from "./migrations/0018_turn_latencies_by_campaign.ts"
import daemons from "./migrations/0019_daemons.ts"

/**
 * Every migration, by `<id>_<name>`.
 *
 * @category constructors
 */
export const migrations = {
  "0001_initial": initial,
  "0002_server_secrets": serverSecrets,
  "0003_dialer": dialer,
  "0004_agent_events": agentEvents,
  "0005_recordings": recordings,
  "0006_webhooks": webhooks,
  "0007_carrier_message_ids": carrierMessageIds,
  "0008_open_inbound_calls": openInboundCalls,
  "0009_agents": agents,
  "0010_media_streams": mediaStreams,
  "0011_webhook_attempts": webhookAttempts,
  "0012_lost_call_recordings": lostCallRecordings,
  "0013_carrier_calls": carrierCalls,
  "0014_listen_tickets": listenTickets,
  "0015_api_keys_by_organization": apiKeysByOrganization,
  "0016_open_direct_calls": openDirectCalls,
  "0017_turn_latencies": turnLatencies,
  "0018_turn_latencies_by_campaign": turnLatenciesByCampaign,
  "0019_daemons": daemons
}

/**
 * Applies the pending migrations up to and including `lastId` (tests use it to put a
 * database where an older release left it); answers the `[id, name]` of those it ran.
 *
 * @category constructors
 */
export const runThrough = (lastId: number): Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  PgMigrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient | PgClient.PgClient
> =>
  PgMigrator.run({
    loader: PgMigrator.fromRecord(
      Object.fromEntries(Object.entries(migrations).filter(([key]) => Number.parseInt(key, 10) <= lastId))
    )
  }).pipe(Effect.provide(NodeServices.layer))

/**
 * Applies the pending migrations; answers the `[id, name]` of those it ran (none on a
 * database that is up to date).
 *
 * @category constructors
 */
export const run = runThrough(Number.POSITIVE_INFINITY)

/**
 * A layer that applies the pending migrations when built.
 *
 * @category layers
 */
export const layer: Layer.Layer<
  never,
  PgMigrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient | PgClient.PgClient
> = Layer.effectDiscard(run)
