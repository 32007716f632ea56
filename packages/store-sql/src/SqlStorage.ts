/**
 * Every storage port of core on SQL, as one layer over a database from `Database`.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as SqlAgentRepository from "./SqlAgentRepository.ts"
import * as SqlApiKeyRepository from "./SqlApiKeyRepository.ts"
import * as SqlCallEvents from "./SqlCallEvents.ts"
import * as SqlCampaignRepository from "./SqlCampaignRepository.ts"
import * as SqlCarrierCalls from "./SqlCarrierCalls.ts"
import * as SqlContactRepository from "./SqlContactRepository.ts"
import * as SqlConversationRepository from "./SqlConversationRepository.ts"
import * as SqlDaemonDirectory from "./SqlDaemonDirectory.ts"
import * as SqlDialerRepository from "./SqlDialerRepository.ts"
import * as SqlDialerWakeup from "./SqlDialerWakeup.ts"
import * as SqlDncRepository from "./SqlDncRepository.ts"
import * as SqlListenTicketRepository from "./SqlListenTicketRepository.ts"
import * as SqlMessageRepository from "./SqlMessageRepository.ts"
import * as SqlOrganizationRepository from "./SqlOrganizationRepository.ts"
import * as SqlPhoneNumberRepository from "./SqlPhoneNumberRepository.ts"
import * as SqlServerSecrets from "./SqlServerSecrets.ts"
import * as SqlStorageOutage from "./SqlStorageOutage.ts"
import * as SqlWebhookRepository from "./SqlWebhookRepository.ts"

/**
 * The twelve repositories (the dialer's, the webhooks', the agents' and listen tickets'
 * included), the installation's secrets, the dialer's call events and wake-ups, what carriers
 * say of calls under their own ids (CarrierCalls), the daemons on the database and which serves
 * each call's media (DaemonDirectory), and which failures mean the database is out of reach
 * (StorageOutage). Requires a database layer (`Database.layerPostgres`, `Database.layerPglite`,
 * `Database.layerFromConfig`): the SQL client and, for `jsonb` parameters, the PostgreSQL client
 * it is.
 *
 * @category layers
 */
export const layer = Layer.mergeAll(
  SqlOrganizationRepository.layer,
  SqlApiKeyRepository.layer,
  SqlPhoneNumberRepository.layer,
  SqlDncRepository.layer,
  SqlCampaignRepository.layer,
  SqlContactRepository.layer,
  SqlConversationRepository.layer,
  SqlMessageRepository.layer,
  SqlServerSecrets.layer,
  SqlDialerRepository.layer,
  SqlCallEvents.layer,
  SqlCarrierCalls.layer,
  SqlDialerWakeup.layer,
  SqlWebhookRepository.layer,
  SqlAgentRepository.layer,
  SqlListenTicketRepository.layer,
  SqlDaemonDirectory.layer,
  SqlStorageOutage.layer
)
