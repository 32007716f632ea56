/**
 * The in-process wake-up of webhook workers on the embedded database, where no `NOTIFY` can
 * reach a listener (see `Database.isEmbedded`): whoever enqueues deliveries calls
 * {@link signal} with its client, and every SqlWebhookRepository built on that same client
 * hears it. Keyed by the client object, so repositories on two databases in one process never
 * hear each other; the registry holds nothing once a client is gone.
 *
 * A signal may arrive before the enqueuing transaction commits. That is enough on the embedded
 * database: it has one connection, which the transaction holds until it ends, so a worker's
 * claim woken by the signal runs after the commit (and, after a rollback, finds nothing).
 */

const listeners = new WeakMap<object, Set<() => void>>()

/** Registers `listener` for signals on `client`; answers the function that removes it. */
export const listen = (client: object, listener: () => void): () => void => {
  let set = listeners.get(client)
  if (set === undefined) {
    set = new Set()
    listeners.set(client, set)
  }
  set.add(listener)
  return () => {
    set.delete(listener)
  }
}

/** Wakes every listener on `client`. */
export const signal = (client: object): void => {
  for (const listener of listeners.get(client) ?? []) listener()
}
