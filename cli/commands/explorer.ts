/**
 * `cresolver explorer`: the resolution explorer web app against any RPC, without a daemon. Markets from --market or
 * the deployment file (its BettingMarket too); bundles from the proposals' bundleURIs. Runs until SIGINT/SIGTERM.
 */
import type { Command } from "commander";
import type { Address } from "viem";
import { startExplorerServer, type ExplorerServer } from "../../explorer/server.js";
import { parseAddress } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import { hostOption, portOption } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { describedCommand } from "./help-text.js";

interface ExplorerFlags {
  port: number;
  host: string;
  betting?: string;
  allowLocalUrls?: boolean;
}

export function explorerCommand(runtime: () => Runtime): Command {
  return describedCommand("explorer explorer")
    .addOption(portOption(8788))
    .addOption(hostOption())
    .option("--betting <address>", "BettingMarket whose pools to show (default: the deployment file's, if any)")
    .option(
      "--allow-local-urls",
      "also fetch bundle and registration URIs on loopback/private addresses (a local daemon's publicUrl)",
    )
    .action(async (opts: ExplorerFlags) => {
      const rt = runtime();
      const betting: Address | undefined =
        opts.betting !== undefined
          ? parseAddress(opts.betting, "--betting")
          : (await rt.deployment({ required: false }))?.contracts.BettingMarket?.address;
      const market = await rt.marketAddress();
      const ctx = await rt.chain();
      let server: ExplorerServer;
      try {
        server = await startExplorerServer({
          ctx,
          markets: [market],
          fromBlock: await rt.marketFromBlock(),
          host: opts.host,
          port: opts.port,
          ...(betting !== undefined ? { betting } : {}),
          ...(opts.allowLocalUrls ? { destinations: { allowLoopback: true, allowPrivate: true } } : {}),
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new CliError(
          `cannot listen on ${opts.host}:${opts.port}: ${code ?? (error instanceof Error ? error.message : String(error))}`,
          1,
        );
      }
      rt.emit(
        { url: server.url, market, chainId: ctx.chainId, ...(betting ? { betting } : {}) },
        `explorer: ${server.url} (market ${market}, chain ${ctx.chainId})`,
      );
      await new Promise<void>((resolveStop) => {
        const signal = rt.io.signal;
        let stopping = false;
        const stop = () => {
          // SIGINT both aborts the signal (main.ts) and reaches this listener: stop once.
          if (stopping) return;
          stopping = true;
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          signal?.removeEventListener("abort", stop);
          void server.close().finally(resolveStop);
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        if (signal?.aborted) stop();
        else signal?.addEventListener("abort", stop, { once: true });
      });
    });
}
