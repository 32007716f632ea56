/**
 * A test server as `NodeHttpServer.layerTest` makes one (port 0, a fetch client aimed at it,
 * no keep-alive), but on the server the daemon runs (NodeServer): what Node's parser refuses
 * is answered in the API's error shape there too.
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Layer } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import * as NodeServer from "../NodeServer.ts"

/**
 * @category layers
 */
export const layer = HttpServer.layerTestClient.pipe(
  Layer.provide(
    Layer.fresh(FetchHttpClient.layer).pipe(
      Layer.provide(Layer.succeed(FetchHttpClient.RequestInit)({ keepalive: false }))
    )
  ),
  Layer.provideMerge(NodeHttpServer.layer(NodeServer.createServer, { port: 0 }))
)
