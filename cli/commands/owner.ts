/**
 * `cresolver owner …`: the bounded owner's transactions. Market contract (MarketGovernance): queue/remove a
 * resolver (active for markets created after the timelock), the defaults for new markets (bounded by the
 * contract), queue/apply the default arbiter, allow/remove an arbiter on the allow-list. CREReceiver: show its settings, queue/apply/cancel a timelocked change.
 * `market settings` shows the market side.
 */
import { Command, Option } from "commander";
import { formatEther, pad, parseEventLogs, type Address, type Hex } from "viem";
import { creReceiverAbi, marketGovernanceAbi } from "../../workflow/chain/abis.js";
import type { ChainContext } from "../../workflow/chain/clients.js";
import { getDefaults, governanceOf } from "../../workflow/chain/lifecycle.js";
import { readView, viewCall } from "../../workflow/chain/reads.js";
import { sendContractTx, type WriteArgs, type WriteFunctionName } from "../../workflow/chain/writer.js";
import { parseAddress, parseDuration, type DeploymentFile } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import { marketSettingOptions, parseMarketSettings, withOptions, type MarketSettingFlags } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { iso } from "./market-lifecycle.js";
import { describedCommand, HELP_TEXT } from "./help-text.js";

/** One owner transaction, sent to the market's MarketGovernance (the bounded owner). */
async function marketTx<F extends WriteFunctionName<typeof marketGovernanceAbi>>(
  rt: Runtime,
  functionName: F,
  args: WriteArgs<typeof marketGovernanceAbi, F>,
) {
  const { market, ctx } = await rt.marketSigner();
  const { hash, receipt } = await sendContractTx(ctx, {
    address: await governanceOf(ctx, market),
    abi: marketGovernanceAbi,
    functionName,
    args,
    label: `MarketGovernance.${functionName}`,
  });
  return { market, ctx, txHash: hash, blockNumber: receipt.blockNumber, logs: receipt.logs };
}

type MarketTx = Awaited<ReturnType<typeof marketTx>>;

/**
 * `<name> <address>`: one governance transaction on a resolver's or an arbiter's address, reported as
 * `{ market, <resolver|arbiter>: address, ...fields, txHash, blockNumber }` and the line `report` writes.
 */
function addressTxCmd(
  runtime: () => Runtime,
  name: string,
  spec: {
    description: string;
    functionName: "queueResolver" | "removeResolver" | "queueDefaultArbiter" | "queueArbiter" | "removeArbiter";
    report: (address: Address, r: MarketTx) => { fields?: Record<string, unknown>; text: string };
  },
): Command {
  // The function names its role: a resolver's address, or an arbiter contract's.
  const role = spec.functionName.endsWith("Resolver") ? "resolver" : "arbiter";
  return new Command(name)
    .description(spec.description)
    .argument("<address>", role === "resolver" ? "the resolver" : "the arbiter contract")
    .action(async (addressArg: string) => {
      const rt = runtime();
      const address = parseAddress(addressArg, "address");
      const r = await marketTx(rt, spec.functionName, [address]);
      const { fields, text } = spec.report(address, r);
      rt.emit(
        { market: r.market, [role]: address, ...fields, txHash: r.txHash, blockNumber: r.blockNumber },
        `${text}\n  tx ${r.txHash}`,
      );
    });
}

/** When a queued resolver or arbiter becomes active (its Queued event's `activeFrom`). */
function activeFrom(r: MarketTx, eventName: "ResolverQueued" | "ArbiterQueued"): bigint {
  const [event] = parseEventLogs({ abi: marketGovernanceAbi, eventName, logs: r.logs });
  return event?.args.activeFrom ?? 0n;
}

function resolverCmd(runtime: () => Runtime): Command {
  const queue = addressTxCmd(runtime, "queue", {
    description: "Queue a resolver: it may propose on markets created once the timelock is over.",
    functionName: "queueResolver",
    report: (resolver, r) => {
      const from = activeFrom(r, "ResolverQueued");
      return {
        fields: { activeFrom: from },
        text: `queued resolver ${resolver}: proposes on markets created from ${iso(from)}`,
      };
    },
  });
  const remove = addressTxCmd(runtime, "remove", {
    description: "Remove a resolver (at once; also cancels a queued one).",
    functionName: "removeResolver",
    report: (resolver) => ({ text: `removed resolver ${resolver}` }),
  });
  return new Command("resolver")
    .description("Queue or remove resolvers of the market contract")
    .addCommand(queue)
    .addCommand(remove);
}

interface DefaultsOptions extends MarketSettingFlags {
  gracePeriod?: string;
}

function defaultsCmd(runtime: () => Runtime): Command {
  return withOptions(describedCommand("owner defaults"), marketSettingOptions())
    .option("--grace-period <duration>", "time after the deadline before cancellation can be requested (1h to 30d)")
    .action(async (opts: DefaultsOptions) => {
      const rt = runtime();
      if (Object.values(opts).every((v) => v === undefined))
        throw new CliError(
          "name at least one setting: --min-stake, --max-workers, --grace-period, --dispute-window, --bond",
        );
      const given = parseMarketSettings(opts);
      const { market, ctx } = await rt.marketSigner();
      const d = await getDefaults(ctx, market);
      const next = {
        minStake: given.minStake ?? d.minStake,
        maxWorkers: given.maxWorkers ?? d.maxWorkers,
        gracePeriod: opts.gracePeriod !== undefined ? parseDuration(opts.gracePeriod, "--grace-period") : d.gracePeriod,
        disputeWindow: given.disputeWindow ?? d.disputeWindow,
        bond: given.bond ?? d.bond,
      };
      const r = await marketTx(rt, "setDefaults", [
        next.minStake,
        next.maxWorkers,
        next.gracePeriod,
        next.disputeWindow,
        next.bond,
      ]);
      rt.emit(
        { market, defaults: next, txHash: r.txHash, blockNumber: r.blockNumber },
        `defaults for new markets: min stake ${formatEther(next.minStake)} ETH, ${next.maxWorkers} seats, grace ${next.gracePeriod} s, dispute window ${next.disputeWindow} s, bond ${formatEther(next.bond)} ETH\n  tx ${r.txHash}`,
      );
    });
}

function arbiterCmd(runtime: () => Runtime): Command {
  const queue = addressTxCmd(runtime, "queue", {
    description: "Queue a new default arbiter for markets created after the timelock.",
    functionName: "queueDefaultArbiter",
    report: (arbiter, r) => {
      const [event] = parseEventLogs({ abi: marketGovernanceAbi, eventName: "DefaultArbiterQueued", logs: r.logs });
      const effectiveAt = event?.args.effectiveAt ?? 0n;
      return { fields: { effectiveAt }, text: `queued default arbiter ${arbiter}, effective from ${iso(effectiveAt)}` };
    },
  });
  const apply = new Command("apply")
    .description("Apply the queued default arbiter once its timelock is over (anyone).")
    .action(async () => {
      const rt = runtime();
      const r = await marketTx(rt, "applyDefaultArbiter", []);
      const { arbiter } = await getDefaults(r.ctx, r.market);
      rt.emit(
        { market: r.market, arbiter, txHash: r.txHash, blockNumber: r.blockNumber },
        `default arbiter is now ${arbiter}\n  tx ${r.txHash}`,
      );
    });
  const allow = addressTxCmd(runtime, "allow", {
    description: HELP_TEXT["owner allow"],
    functionName: "queueArbiter",
    report: (arbiter, r) => {
      const from = activeFrom(r, "ArbiterQueued");
      return { fields: { activeFrom: from }, text: `allowed arbiter ${arbiter} from ${iso(from)}` };
    },
  });
  const remove = addressTxCmd(runtime, "remove", {
    description: "Take an arbiter off the allow-list (markets created before keep the one they snapshotted).",
    functionName: "removeArbiter",
    report: (arbiter) => ({ text: `removed arbiter ${arbiter} from the allow-list` }),
  });
  return new Command("arbiter")
    .description("The default arbiter of new markets and the arbiter allow-list (timelocked)")
    .addCommand(queue)
    .addCommand(apply)
    .addCommand(allow)
    .addCommand(remove);
}

/** ICREReceiver.ChangeKind, in order. */
const CHANGE_KINDS = [
  "forwarder",
  "allow-workflow-id",
  "disallow-workflow-id",
  "workflow-owner",
  "workflow-name",
  "allow-any-workflow",
] as const;
type ChangeKindName = (typeof CHANGE_KINDS)[number];

/** The bytes32 the receiver expects for each kind (addresses right-aligned, the name left-aligned). */
function changeValue(kind: ChangeKindName, value: string): Hex {
  if (kind === "forwarder" || kind === "workflow-owner")
    return pad(parseAddress(value, "--value").toLowerCase() as Hex);
  if (kind === "allow-any-workflow") {
    if (value !== "true" && value !== "false")
      throw new CliError("--value for allow-any-workflow must be true or false");
    return pad(value === "true" ? "0x01" : "0x00");
  }
  if (kind === "workflow-name") {
    if (!/^0x[0-9a-fA-F]{20}$/.test(value))
      throw new CliError("--value for workflow-name must be the 10-byte name as 0x + 20 hex digits");
    return pad(value as Hex, { dir: "right" });
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(value) || /^0x0{64}$/.test(value))
    throw new CliError(`--value for ${kind} must be a non-zero 32-byte workflow id (0x + 64 hex digits)`);
  return value as Hex;
}

async function receiverAddress(rt: Runtime, flag: string | undefined): Promise<Address> {
  if (flag !== undefined) return parseAddress(flag, "--receiver");
  const receiver = ((await rt.deployment({ required: true })) as DeploymentFile).contracts.CREReceiver?.address;
  if (receiver === undefined) throw new CliError("this deployment has no CREReceiver: pass --receiver <address>");
  return receiver;
}

async function readReceiver(ctx: ChainContext, receiver: Address) {
  const at = (label: string) => `CREReceiver.${label}`;
  const [owner, forwarder, allowAnyWorkflow, expectedWorkflowOwner, expectedWorkflowName, allowedWorkflowIdCount] =
    await Promise.all([
      readView(ctx, viewCall(receiver, creReceiverAbi, "owner", []), at("owner")),
      readView(ctx, viewCall(receiver, creReceiverAbi, "forwarder", []), at("forwarder")),
      readView(ctx, viewCall(receiver, creReceiverAbi, "allowAnyWorkflow", []), at("allowAnyWorkflow")),
      readView(ctx, viewCall(receiver, creReceiverAbi, "expectedWorkflowOwner", []), at("expectedWorkflowOwner")),
      readView(ctx, viewCall(receiver, creReceiverAbi, "expectedWorkflowName", []), at("expectedWorkflowName")),
      readView(ctx, viewCall(receiver, creReceiverAbi, "allowedWorkflowIdCount", []), at("allowedWorkflowIdCount")),
    ]);
  return {
    receiver,
    owner,
    forwarder,
    allowAnyWorkflow,
    expectedWorkflowOwner,
    expectedWorkflowName,
    allowedWorkflowIdCount,
  };
}

function creCmd(runtime: () => Runtime): Command {
  const receiverOption = () =>
    new Option("--receiver <address>", "CREReceiver address (default: from the deployment file)");
  const show = new Command("show")
    .description("The CREReceiver's settings: owner, forwarder, workflow checks.")
    .addOption(receiverOption())
    .action(async (opts: { receiver?: string }) => {
      const rt = runtime();
      const receiver = await receiverAddress(rt, opts.receiver);
      const s = await readReceiver(await rt.chain(), receiver);
      rt.emit(
        s,
        `CREReceiver ${receiver}, owner ${s.owner}\n  forwarder     ${s.forwarder}\n  workflows     ${s.allowAnyWorkflow ? "any" : `${s.allowedWorkflowIdCount} allowed id(s)`}, owner ${s.expectedWorkflowOwner}, name ${s.expectedWorkflowName}`,
      );
    });
  const change = (name: "queue" | "apply" | "cancel", description: string) =>
    new Command(name)
      .description(description)
      .addOption(new Option("--kind <kind>", "the setting").choices([...CHANGE_KINDS]).makeOptionMandatory())
      .requiredOption(
        "--value <value>",
        "address (forwarder, workflow-owner), 32-byte id, 10-byte name (0x…), or true/false",
      )
      .addOption(receiverOption())
      .action(async (opts: { kind: ChangeKindName; value: string; receiver?: string }) => {
        const rt = runtime();
        const value = changeValue(opts.kind, opts.value);
        rt.requireKey();
        const receiver = await receiverAddress(rt, opts.receiver);
        const ctx = await rt.chain({ needsKey: true });
        const functionName = `${name}Change` as const;
        const { hash, receipt } = await sendContractTx(ctx, {
          address: receiver,
          abi: creReceiverAbi,
          functionName,
          args: [CHANGE_KINDS.indexOf(opts.kind), value],
          label: `CREReceiver.${functionName}`,
        });
        const [queued] =
          name === "queue"
            ? parseEventLogs({ abi: creReceiverAbi, eventName: "ConfigChangeQueued", logs: receipt.logs })
            : [];
        const effectiveAt = queued?.args.effectiveAt ?? null;
        rt.emit(
          {
            receiver,
            action: name,
            kind: opts.kind,
            value,
            effectiveAt,
            txHash: hash,
            blockNumber: receipt.blockNumber,
          },
          `${name === "queue" ? "queued" : name === "apply" ? "applied" : "cancelled"} ${opts.kind} ${opts.value}${effectiveAt !== null ? `, applicable from ${iso(effectiveAt)}` : ""}\n  tx ${hash}`,
        );
      });
  return new Command("cre")
    .description("The CREReceiver's timelocked settings")
    .addCommand(show)
    .addCommand(change("queue", "Queue a settings change (applicable after the receiver's 2-day delay)."))
    .addCommand(change("apply", "Apply a queued change once its delay is over."))
    .addCommand(change("cancel", "Cancel a queued change."));
}

export function ownerCommand(runtime: () => Runtime): Command {
  return new Command("owner")
    .description("The owner's commands: resolvers, defaults for new markets, default arbiter, CRE receiver settings")
    .addCommand(resolverCmd(runtime))
    .addCommand(defaultsCmd(runtime))
    .addCommand(arbiterCmd(runtime))
    .addCommand(creCmd(runtime));
}
