/**
 * Read-only overviews: `agent list`, `agent show <id>` and `owed [address]` (`market list` is market-list.ts)
 * (workflow/chain/listings.ts). None needs a key; `agent show` fetches a remote registration file only through
 * the safe HTTP client (timeouts, size cap, destination guard).
 */
import { Command } from "commander";
import { formatEther, type Address } from "viem";
import { agentDetails, listAgents, owedTo } from "../../workflow/chain/listings.js";
import { visibleText } from "../../workflow/core/text.js";
import { createSafeHttpClient } from "../../workflow/http/index.js";
import { decodeAgentUri, pickWorkerEndpoint } from "../../workflow/registration/index.js";
import { parseAddress, parseUint, type DeploymentFile } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import { allowLoopbackOption, allowPrivateOption, localAddressPolicy } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { describedCommand, HELP_TEXT } from "./help-text.js";

function agentList(runtime: () => Runtime): Command {
  return new Command("list").description(HELP_TEXT["inspect list"]).action(async () => {
    const rt = runtime();
    const [identity, market] = await Promise.all([rt.identityAddress(), rt.marketAddress()]);
    const ctx = await rt.chain();
    const agents = await listAgents(ctx, identity, market, await rt.marketFromBlock());
    const lines = agents.map(
      (a) =>
        `agent ${a.agentId}${a.registeredBy ? ` registered by ${a.registeredBy}` : ""}; joined ${a.markets.length ? `market(s) ${a.markets.join(", ")}` : "no market"}`,
    );
    rt.emit({ identity, market, count: agents.length, agents }, agents.length === 0 ? "no agents" : lines.join("\n"));
  });
}

/** The agent's registration file: `data:` decoded offline, https/ipfs fetched through the safe HTTP client (unless `fetch` is off). */
async function registrationOf(
  uri: string,
  options: { fetch: boolean; allowLoopback: boolean; allowPrivate: boolean },
): Promise<{ name: string | null; endpoint: string | null; protocol: string | null; error: string | null }> {
  if (!uri.startsWith("data:") && !options.fetch)
    return { name: null, endpoint: null, protocol: null, error: "not fetched (--no-fetch)" };
  const http = uri.startsWith("data:")
    ? undefined
    : createSafeHttpClient({
        allowLoopback: options.allowLoopback,
        allowPrivate: options.allowPrivate,
        userAgent: "cresolver-agent-show",
      });
  try {
    const file = await decodeAgentUri(uri, http ? { fetcher: http.fetcher } : {});
    const picked = pickWorkerEndpoint(file, [
      file.services.find((s) => s.name.toLowerCase() === "a2a")?.protocol ?? "cresolver",
    ]);
    return { name: file.name, endpoint: picked.url, protocol: picked.protocol, error: null };
  } catch (error) {
    return {
      name: null,
      endpoint: null,
      protocol: null,
      error: (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "unreadable",
    };
  } finally {
    await http?.close();
  }
}

function agentShow(runtime: () => Runtime): Command {
  return describedCommand("inspect show")
    .argument("<agentId>", "the ERC-8004 agent id")
    .option("--no-fetch", "do not fetch an https:/ipfs: registration file (data: URIs are always decoded)")
    .addOption(allowLoopbackOption("the registration URI"))
    .addOption(allowPrivateOption("the registration URI"))
    .action(async (agentIdArg: string, opts: { fetch: boolean; allowLoopback?: boolean; allowPrivate?: boolean }) => {
      const rt = runtime();
      const agentId = parseUint(agentIdArg, "agentId");
      const [identity, market] = await Promise.all([rt.identityAddress(), rt.marketAddress()]);
      const ctx = await rt.chain();
      const d = await agentDetails(ctx, identity, market, agentId, await rt.marketFromBlock());
      const registration = await registrationOf(d.agentURI, {
        fetch: opts.fetch,
        ...localAddressPolicy(opts),
      });
      const decided = d.trackRecord.filter((t) => t.correct !== null);
      const accuracy = decided.length === 0 ? null : decided.filter((t) => t.correct).length / decided.length;
      const lines = [
        `agent ${agentId} in ${identity}`,
        `  owner         ${d.owner}, wallet ${d.agentWallet}`,
        `  registration  ${visibleText(registration.name ?? "?")}: ${registration.endpoint ? `${visibleText(registration.endpoint)} (${registration.protocol})` : visibleText(registration.error ?? "?")}`,
        `  record        ${d.reputation.settled} settled, correctness ${d.reputation.correctness}, quality ${d.reputation.resQuality}/${d.reputation.srcQuality}/${d.reputation.analysisDepth}`,
        `  ERC-8004      ${d.erc8004 ? `${d.erc8004.count} records from this market, summary ${d.erc8004.value} (${d.erc8004.decimals} decimals)` : "no summary"}`,
        `  answers       ${d.trackRecord.length} finalized market(s)${accuracy !== null ? `, ${(accuracy * 100).toFixed(0)}% correct` : ""}`,
        ...d.trackRecord.map(
          (t) =>
            `    market ${t.marketId}: ${t.answer}${t.answer === "yes" || t.answer === "no" ? ` @ ${(t.confidenceBps / 100).toFixed(0)}%` : ""}, final ${t.final === "invalid" ? "INVALID" : t.final ? "YES" : "NO"}${t.correct === null ? "" : t.correct ? ", correct" : ", wrong"}${t.disputed ? " (arbitrated)" : ""}`,
        ),
      ];
      rt.emit({ ...d, identity, market, registration, accuracy }, lines.join("\n"));
    });
}

export function agentInspectCommands(runtime: () => Runtime): Command[] {
  return [agentList(runtime), agentShow(runtime)];
}

export function owedCommand(runtime: () => Runtime): Command {
  return describedCommand("inspect owed")
    .argument("[address]", "the account (default: the address of --private-key)")
    .option("--betting <address>", "BettingMarket address (default: from the deployment file, if it has one)")
    .action(async (addressArg: string | undefined, opts: { betting?: string }) => {
      const rt = runtime();
      const market = await rt.marketAddress();
      const ctx = await rt.chain();
      const account: Address | undefined =
        addressArg !== undefined ? parseAddress(addressArg, "address") : ctx.account?.address;
      if (account === undefined) throw new CliError("owed needs an address: pass one, or --private-key / PRIVATE_KEY");
      const betting =
        opts.betting !== undefined
          ? parseAddress(opts.betting, "--betting")
          : ((await rt.deployment({ required: false })) as DeploymentFile | undefined)?.contracts.BettingMarket
              ?.address;
      const owed = await owedTo(ctx, market, betting, account, await rt.marketFromBlock());
      const lines = [
        `${account} is owed ${formatEther(owed.total)} ETH`,
        `  market        ${formatEther(owed.market)} ETH${owed.market > 0n ? " (cresolver market withdraw)" : ""}`,
        ...owed.bets.map(
          (b) =>
            `  bet           ${formatEther(b.amount)} ETH in market ${b.marketId} (cresolver bet claim ${b.marketId})`,
        ),
      ];
      rt.emit({ ...owed, betting: betting ?? null }, lines.join("\n"));
    });
}
