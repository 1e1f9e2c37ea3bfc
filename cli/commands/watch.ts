/**
 * `cresolver watch`: re-runs the vote of every open proposal from public data and reports, or with `--dispute`
 * sends, the disputes it finds (workflow/watch/). docs/WATCH.md explains who runs it and how.
 */
import type { Command } from "commander";
import { createSafeHttpClient } from "../../workflow/http/index.js";
import { MAX_BUNDLE_BYTES } from "../../workflow/core/bundle.js";
import { watchPass } from "../../workflow/watch/run.js";
import { parseAddress, parseEth, parseUint } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import { allowLoopbackOption, allowPrivateOption, localAddressPolicy } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { describedCommand } from "./help-text.js";

interface WatchOpts {
  dispute?: boolean;
  againstShare: string;
  coalitionK: string;
  maxBond?: string;
  trustedArbiter?: string[];
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  bundles: boolean;
}

/** `--against-share` as a number in (0, 1]. */
export function parseShare(value: string, flag: string): number {
  const n = Number(value);
  if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(value.trim()) || !(n > 0 && n <= 1))
    throw new CliError(`${flag} must be a number in (0, 1], got "${value.slice(0, 20)}"`);
  return n;
}

export function watchCommand(runtime: () => Runtime): Command {
  return describedCommand("watch watch")
    .argument("[marketIds...]", "markets to review (default: every proposal still in Proposed)")
    .option("--dispute", "send the disputes (each puts up the market's bond, lost if the arbiter upholds the proposal)")
    .option(
      "--against-share <share>",
      "dispute a yes/no proposal that at least this share of the yes/no seats answered against",
      "0.5",
    )
    .option("--coalition-k <k>", "the recomputed verdict must survive the defection of its k heaviest agents", "2")
    .option("--max-bond <eth>", "largest market bond (ETH) to put up for one dispute (default 1)")
    .option(
      "--trusted-arbiter <address...>",
      "an arbiter to trust besides the deployment's allow-list: its rulings are truth in the record, and proposals it judges may be disputed",
    )
    .option("--no-bundles", "do not fetch the proposals' bundles")
    .addOption(allowLoopbackOption("the proposals' bundles"))
    .addOption(allowPrivateOption("the proposals' bundles"))
    .action(async (ids: string[], opts: WatchOpts) => {
      const rt = runtime();
      const marketIds = ids.length > 0 ? ids.map((id) => parseUint(id, "marketId")) : undefined;
      const againstShare = parseShare(opts.againstShare, "--against-share");
      const coalitionK = Number(parseUint(opts.coalitionK, "--coalition-k"));
      if (coalitionK > 1000) throw new CliError("--coalition-k must be at most 1000");
      const maxBond = opts.maxBond !== undefined ? parseEth(opts.maxBond, "--max-bond") : undefined;
      const trustedArbiters = (opts.trustedArbiter ?? []).map((a) => parseAddress(a, "--trusted-arbiter"));
      if (opts.dispute === true) rt.requireKey();
      const market = await rt.marketAddress();
      const ctx = await rt.chain(opts.dispute === true ? { needsKey: true } : {});
      const fromBlock = await rt.marketFromBlock();
      const http = opts.bundles
        ? createSafeHttpClient({
            ...localAddressPolicy(opts),
            maxResponseBytes: MAX_BUNDLE_BYTES,
            userAgent: "cresolver-watch",
          })
        : undefined;
      try {
        const results = await watchPass(ctx, market, {
          dispute: opts.dispute === true,
          watch: { againstShare },
          vote: { coalitionK },
          trustedArbiters,
          range: { fromBlock },
          ...(maxBond !== undefined ? { maxBond } : {}),
          ...(http !== undefined
            ? { fetchText: (url: string) => http.getText(url, { maxBytes: MAX_BUNDLE_BYTES, timeoutMs: 10_000 }) }
            : {}),
          ...(marketIds !== undefined ? { marketIds } : {}),
        });
        const lines = results.length > 0 ? results.map((r) => r.line) : ["no proposal in its dispute window"];
        rt.emit(
          {
            market,
            mode: opts.dispute === true ? "dispute" : "report",
            markets: results.map((r) =>
              "error" in r
                ? { marketId: r.marketId, error: r.error }
                : {
                    marketId: r.marketId,
                    proposed: r.review.proposal.verdict,
                    recomputed: r.review.recomputed,
                    reasons: r.review.watch.reasons,
                    against: r.review.watch.against,
                    answered: r.review.watch.answered,
                    history: r.review.history,
                    bundle: r.review.bundle,
                    arbiter: r.review.arbiter,
                    arbiterTrusted: r.review.arbiterTrusted,
                    action: r.action,
                  },
            ),
          },
          lines.join("\n"),
        );
      } finally {
        await http?.close();
      }
    });
}
