import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { LOCAL_CHAIN_IDS } from "../../workflow/chain/clients.js";
import { deployAll } from "../../workflow/chain/deploy.js";
import { fileDeployJournal } from "../../workflow/chain/deploy-journal.js";
import { NETWORK_NAME, networkNameFor, parseAddress, parseIntIn, parseUint } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import type { Runtime } from "../shared/runtime.js";
import { describedCommand } from "./help-text.js";

const collect = (value: string, previous: string[]) => [...previous, value];

export function deployCommand(runtime: () => Runtime): Command {
  return describedCommand("deploy deploy")
    .option(
      "--own-registries",
      "deploy our IdentityRegistry and ReputationRegistry even where the canonical ones exist",
    )
    .option("--reputation <address>", "use this existing ReputationRegistry (with the global --identity)")
    .option(
      "--resolver <address>",
      "authorise this resolver on the market (repeatable; default: the deployer); queued before the first market, so active at once",
      collect,
      [] as string[],
    )
    .option(
      "--arbiter <address>",
      "default arbiter of disputes (a contract, e.g. an UmaArbiter or a CommitteeArbiter), set before the first market",
    )
    .option(
      "--committee <addresses>",
      "instead of --arbiter: deploy a CommitteeArbiter with these members (comma-separated; default: the deployer alone)",
    )
    .option("--committee-threshold <n>", "votes the committee needs for a ruling (default 1)")
    .option(
      "--uma <oracle>",
      "instead of --arbiter/--committee: deploy an UmaArbiter on this UMA Optimistic Oracle V3 and make it the default arbiter (needs --uma-currency)",
    )
    .option("--uma-currency <address>", "the ERC-20 of UMA's bond (on UMA's collateral whitelist, e.g. USDC or WETH)")
    .option("--uma-bond <units>", "UMA bond per dispute in the currency's base units (default 0 = OOv3's minimum)")
    .option(
      "--uma-liveness <seconds>",
      "how long a dispute's assertion can be countered on UMA (600 … 604800, default 7200)",
    )
    .option(
      "--allow-deployer-arbiter",
      "on a non-local chain, accept the deployer as the committee's only member (it alone would rule every dispute)",
    )
    .option(
      "--forwarder <address>",
      "also deploy a CREReceiver for this Chainlink KeystoneForwarder and make it a resolver",
    )
    .option("--no-betting", "do not deploy the BettingMarket")
    .option(
      "--network-name <name>",
      "name for the deployment file (default from the chain id: localhost, sepolia, mainnet, chain-<id>)",
    )
    .option("--out <file>", "where to write the deployment (default deployments/<network>.json)")
    .option("--force", "overwrite an existing deployment file of a non-local chain")
    .action(
      async (opts: {
        ownRegistries?: boolean;
        reputation?: string;
        resolver: string[];
        arbiter?: string;
        committee?: string;
        committeeThreshold?: string;
        uma?: string;
        umaCurrency?: string;
        umaBond?: string;
        umaLiveness?: string;
        allowDeployerArbiter?: boolean;
        forwarder?: string;
        betting: boolean;
        networkName?: string;
        out?: string;
        force?: boolean;
      }) => {
        const rt = runtime();
        rt.requireKey();
        const identity =
          rt.globals.identity !== undefined ? parseAddress(rt.globals.identity, "--identity") : undefined;
        const reputation = opts.reputation !== undefined ? parseAddress(opts.reputation, "--reputation") : undefined;
        if ((identity === undefined) !== (reputation === undefined))
          throw new CliError("give both --identity and --reputation to use existing registries, or neither");
        if (identity !== undefined && opts.ownRegistries)
          throw new CliError("--own-registries conflicts with --identity/--reputation");
        const resolvers = opts.resolver.map((r) => parseAddress(r, "--resolver"));
        const forwarder = opts.forwarder !== undefined ? parseAddress(opts.forwarder, "--forwarder") : undefined;
        const arbiter = opts.arbiter !== undefined ? parseAddress(opts.arbiter, "--arbiter") : undefined;
        if (arbiter !== undefined && (opts.committee !== undefined || opts.committeeThreshold !== undefined))
          throw new CliError("--arbiter conflicts with --committee / --committee-threshold");
        const members =
          opts.committee !== undefined
            ? opts.committee.split(",").map((a) => parseAddress(a.trim(), "--committee"))
            : undefined;
        const threshold =
          opts.committeeThreshold !== undefined
            ? parseIntIn(opts.committeeThreshold, "--committee-threshold", 1, members?.length ?? 1)
            : undefined;
        const umaFlags = [opts.umaCurrency, opts.umaBond, opts.umaLiveness].some((x) => x !== undefined);
        if (opts.uma === undefined && umaFlags)
          throw new CliError("--uma-currency/--uma-bond/--uma-liveness need --uma");
        if (
          opts.uma !== undefined &&
          (arbiter !== undefined || opts.committee !== undefined || opts.committeeThreshold !== undefined)
        )
          throw new CliError("--uma conflicts with --arbiter / --committee / --committee-threshold");
        if (opts.uma !== undefined && opts.umaCurrency === undefined)
          throw new CliError("--uma needs --uma-currency <address> (the ERC-20 of UMA's bond)");
        const uma =
          opts.uma !== undefined && opts.umaCurrency !== undefined
            ? {
                oracle: parseAddress(opts.uma, "--uma"),
                currency: parseAddress(opts.umaCurrency, "--uma-currency"),
                ...(opts.umaBond !== undefined ? { bond: parseUint(opts.umaBond, "--uma-bond") } : {}),
                ...(opts.umaLiveness !== undefined
                  ? { liveness: parseIntIn(opts.umaLiveness, "--uma-liveness", 600, 604_800) }
                  : {}),
              }
            : undefined;
        if (opts.networkName !== undefined && !NETWORK_NAME.test(opts.networkName))
          throw new CliError(
            `--network-name must be letters, digits, - or _ (≤ 64), got "${opts.networkName.slice(0, 40)}"`,
          );

        const ctx = await rt.chain({ needsKey: true });
        const network = opts.networkName ?? networkNameFor(ctx.chainId);
        const out = resolve(rt.io.cwd, opts.out ?? `deployments/${network}.json`);
        if (existsSync(out) && !LOCAL_CHAIN_IDS.has(ctx.chainId) && !opts.force) {
          throw new CliError(
            `${out} already exists for chain ${ctx.chainId}: pass --force to replace it, or choose --network-name / --out`,
          );
        }
        // Every contract is journaled as it lands; a re-run after a failure reuses those with code at their address.
        const deployer = ctx.account?.address;
        if (deployer === undefined) throw new CliError("deploy needs --private-key or PRIVATE_KEY");
        const journal = fileDeployJournal(`${out}.partial`, ctx.chainId, deployer);
        mkdirSync(dirname(out), { recursive: true });
        const deployment = await deployAll(ctx, {
          network,
          journal,
          ...(opts.ownRegistries ? { ownRegistries: true } : {}),
          ...(identity && reputation ? { identityRegistry: identity, reputationRegistry: reputation } : {}),
          resolvers,
          betting: opts.betting,
          ...(forwarder ? { forwarder } : {}),
          ...(arbiter ? { arbiter } : {}),
          ...(uma !== undefined ? { uma } : {}),
          ...(opts.allowDeployerArbiter === true ? { allowDeployerArbiter: true } : {}),
          ...(members !== undefined || threshold !== undefined
            ? { committee: { ...(members ? { members } : {}), ...(threshold !== undefined ? { threshold } : {}) } }
            : {}),
          onProgress: (m) => rt.note(m),
        });
        // Written whole or not at all: a temp file renamed into place.
        const tmp = `${out}.${process.pid}.tmp`;
        writeFileSync(tmp, `${JSON.stringify(deployment, null, 2)}\n`);
        renameSync(tmp, out);
        journal.done();
        // Absolute: a relative path printed by a command run from elsewhere (scripts, the daemon's cwd) misleads.
        const file = out;
        const lines = [
          `network ${deployment.network} (chain ${deployment.chainId}), deployer ${deployment.deployer}, registries: ${deployment.registries}`,
          ...Object.entries(deployment.contracts).map(
            ([name, c]) =>
              `  ${name.padEnd(19)} ${c.address}${c.blockNumber !== undefined ? ` (block ${c.blockNumber})` : " (existing)"}`,
          ),
          `  resolvers           ${deployment.resolvers.join(", ")}`,
          `  default arbiter     ${deployment.arbiter}${deployment.contracts.CommitteeArbiter ? ` (committee, ${deployment.contracts.CommitteeArbiter.threshold} of ${deployment.contracts.CommitteeArbiter.members.join(", ")})` : ""}${deployment.contracts.UmaArbiter ? ` (UMA, oracle ${deployment.contracts.UmaArbiter.oracle}, currency ${deployment.contracts.UmaArbiter.currency})` : ""}`,
          ...(journal.resumed.length > 0
            ? [`  resumed             ${journal.resumed.join(", ")} from ${out}.partial`]
            : []),
          `wrote ${file}`,
        ];
        rt.emit({ ...deployment, file, resumed: journal.resumed }, lines.join("\n"));
      },
    );
}
