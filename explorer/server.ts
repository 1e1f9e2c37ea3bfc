/** The explorer alone on its own fastify server (`cresolver explorer`): chain reads plus bundle URIs over the guarded client. */
import Fastify from "fastify";
import { createSafeHttpClient, type DestinationPolicy } from "../workflow/http/index.js";
import type { ExplorerSource } from "./data.js";
import { EXPLORER_PREFIX, explorerPlugin } from "./plugin.js";

export interface ExplorerServer {
  /** http://host:port/explorer */
  url: string;
  close(): Promise<void>;
}

export async function startExplorerServer(
  options: Omit<ExplorerSource, "http"> & { host: string; port: number; destinations?: DestinationPolicy },
): Promise<ExplorerServer> {
  const { host, port, destinations, ...source } = options;
  const http = createSafeHttpClient({ ...destinations, userAgent: "cresolver-explorer" });
  const app = Fastify({ bodyLimit: 1024, return503OnClosing: true, forceCloseConnections: true });
  try {
    await app.register(explorerPlugin, { ...source, http, prefix: EXPLORER_PREFIX });
    app.get("/", async (_req, reply) => reply.redirect(EXPLORER_PREFIX));
    await app.listen({ host, port });
  } catch (err) {
    await app.close().catch(() => undefined);
    await http.close();
    throw err;
  }
  const addr = app.server.address();
  if (addr === null || typeof addr === "string") throw new Error("the explorer did not bind a TCP port");
  const h = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${h}:${addr.port}${EXPLORER_PREFIX}`,
    async close() {
      await app.close();
      await http.close();
    },
  };
}
