/** The production daemon (`startResolverDaemon`) on a panel chain with the settings every such test shares. */
import { startResolverDaemon, type ResolverDaemonHandle, type ResolverDaemonOptions } from "../../../../daemon/host.js";
import { createLogger } from "../../../../daemon/index.js";
import { tempDbPath } from "../../../helpers/daemon/daemon.js";
import type { PanelChain } from "../../../helpers/daemon/panel.js";

/**
 * Resolver key and market of `chain`, a fresh SQLite file named `name`, an ephemeral API port, no confirmations, a
 * 50 ms poll, agents on loopback allowed, logs silent unless DAEMON_TEST_LOG is set; `options` add or override.
 */
export function startProductionDaemon(
  chain: Pick<PanelChain, "rpcUrl" | "resolverKey" | "market">,
  name: string,
  options: Partial<ResolverDaemonOptions> = {},
): Promise<ResolverDaemonHandle> {
  return startResolverDaemon({
    rpcUrl: chain.rpcUrl,
    privateKey: chain.resolverKey,
    markets: [chain.market],
    dbPath: tempDbPath(name),
    apiPort: 0,
    confirmations: 0,
    pollIntervalMs: 50,
    http: { allowLoopback: true },
    logger: createLogger({
      level: process.env.DAEMON_TEST_LOG ?? "silent",
      pretty: false,
      destination: process.stderr,
    }),
    ...options,
  });
}
