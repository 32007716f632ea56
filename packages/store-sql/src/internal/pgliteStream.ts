/**
 * The transport that lets the real `@effect/sql-pg` driver talk to an in-process PGlite:
 * a Duplex whose writes are PostgreSQL frontend messages, fed to `execProtocolRaw`, and
 * whose reads are the backend's replies. Same driver, codecs, error classification and
 * migrator as against a server; only the bytes' route differs.
 *
 * PGlite is one backend session, so the client over it must keep exactly one connection.
 */
import type { PGlite } from "@electric-sql/pglite"
import { Duplex } from "node:stream"

/** A Duplex that feeds each frontend write to PGlite, in order, and pushes the reply. */
export const pgliteStream = (pglite: PGlite) => (): Duplex => {
  let chain = Promise.resolve()
  const duplex: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      chain = chain
        .then(() => pglite.execProtocolRaw(new Uint8Array(chunk)))
        .then((reply) => {
          if (reply.length > 0) duplex.push(Buffer.from(reply))
          callback()
        }, callback)
    },
    final(callback) {
      duplex.push(null)
      callback()
    }
  })
  return duplex
}
