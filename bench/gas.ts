/**
 * Gas benchmark of the resolution market on our ERC-8004 registries (Hardhat in-process chain).
 *
 *   npm run bench:gas      -> writes bench/results/gas.json
 *
 * "Full resolution" = proposeResolution + finalize + every publishFeedback transaction needed until no feedback
 * is pending (requestResolution is reported separately; no dispute). "First market" = the first settlement of a
 * fresh set of agents (the registry has already been used once, so the feedback tags are interned; that one-off
 * cost is reported as `registryWarmup`). "Repeat market" = a second market with the same agents and worker
 * addresses, after every worker withdrew its first payout. Every Yes/No seat is signed by its agent (EIP-712,
 * verified on-chain: the path that is slashable and writes ERC-8004 records); `attested` repeats the 10- and
 * 100-seat repeat markets with no signature at all (no records, no reputation entry) and `signedSeat` is the
 * proposal's extra gas per signed seat.
 *
 * The canonical ERC-8004 registries (what Sepolia users pay) are measured only from compiled artifacts the user
 * supplies: `CANONICAL_ERC8004_ARTIFACTS=<folder>` (see `bench/gas-canonical.ts`) runs the same scenarios on them
 * and writes the `canonical` section; without it the last canonical figures are kept, with their provenance.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { network } from "hardhat";
import { getAddress, keccak256, parseEther, toHex, zeroHash, type Abi, type Address, type Hash, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { signAnswer } from "../workflow/core/answer-signature.js";
import {
  CANONICAL_ENV,
  deployCanonical,
  loadCanonicalArtifacts,
  type CanonicalArtifacts,
  type Provenance,
} from "./gas-canonical.js";

const SIZES = [1, 3, 7, 10, 32, 100] as const;
/**
 * Issue 10: v1 cost per worker on the canonical registries (resolveMarket + 3 records per worker), ~396k first /
 * ~280k repeat (v1 contracts on this bench, 10 seats: 396,263 / 280,224; marginal 10 -> 100: 404,623 / 287,880).
 */
const V1_CANONICAL_FIRST_MARGINAL = 396_000n;
const V1_CANONICAL_REPEAT_MARGINAL = 280_000n;
/**
 * Issue 21's acceptance: on the canonical registries, the marginal cost per worker (10 -> 100 seats, every Yes/No
 * seat signed) is at most 0.75x the CREsolver anchor's like-for-like marginal cost, 455,873 first / 305,623 repeat.
 */
const ANCHOR_FIRST_MARGINAL = 455_873n;
const ANCHOR_REPEAT_MARGINAL = 305_623n;
/** 0.75x the anchor, rounded down (341,904 / 229,217). */
const ANCHOR_FIRST_TARGET = (ANCHOR_FIRST_MARGINAL * 3n) / 4n;
const ANCHOR_REPEAT_TARGET = (ANCHOR_REPEAT_MARGINAL * 3n) / 4n;
/**
 * Marginal cost of one more worker (10 -> 100 seats) must not grow over v1 (resolveMarket + 3 records per
 * worker, bench of 2026-11-22: 183,444 first / 109,065 repeat). Fixed per-market costs (the proposal, its
 * bundle URI in storage) are reported but not targeted.
 */
const TARGET_FIRST_MARGINAL = 183_444n;
const TARGET_REPEAT_MARGINAL = 109_065n;
/** EIP-7825: no transaction may use more than 2^24 gas. */
const TARGET_MAX_TX = 16_777_216n;
/** Explicit limits: gas estimation may find a cheaper run with feedback deferred, which we do not want here. */
const SETTLE_GAS_LIMIT = 16_000_000n;
const PUBLISH_GAS_LIMIT = 10_000_000n;
const PUBLISH_BATCH = 40n;
const BUNDLE_URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/bundle.json";
const STAKE = parseEther("0.01");
const POOL = parseEther("1");

type MarketRun = {
  workers: number;
  createMarket: bigint;
  joinMarket: bigint;
  requestResolution: bigint;
  proposeResolution: bigint;
  finalize: bigint;
  publishFeedbackTxs: bigint[];
  resolutionTotal: bigint;
  perWorker: bigint;
  largestTx: bigint;
  feedbackFailed: number;
  /** The permissionless admission count after finalization (RECORDS §5): not part of resolutionTotal. */
  countAdmission: bigint;
};

type Section = Awaited<ReturnType<typeof benchmark>>;

/** Runs every scenario on a fresh in-process chain, on our registries or on the canonical ones. */
async function benchmark(canonical?: CanonicalArtifacts) {
  const { viem } = await network.create();
  const publicClient = await viem.getPublicClient();
  const testClient = await viem.getTestClient();
  const [deployer, creatorWallet, resolverWallet] = await viem.getWalletClients();

  const txs: { label: string; gas: bigint }[] = [];
  async function gasOf(label: string, hash: Promise<Hash>): Promise<bigint> {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== "success") throw new Error(`${label} reverted`);
    txs.push({ label, gas: receipt.gasUsed });
    return receipt.gasUsed;
  }

  const registries = canonical
    ? await deployCanonical({ publicClient, wallet: deployer }, canonical)
    : await deployOurs();
  async function deployOurs() {
    const identity = await viem.deployContract("IdentityRegistry", []);
    const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
    return {
      identity: identity.address,
      reputation: reputation.address,
      identityAbi: identity.abi as Abi,
      reputationAbi: reputation.abi as Abi,
    };
  }
  const identity = registries.identity;
  const market = await viem.deployContract("ResolutionMarket", [
    identity,
    registries.reputation,
    deployer.account.address,
  ]);
  // Before the first market both apply at once (deployment bootstrap). Disputes are not benchmarked, so any
  // contract serves as the arbiter the market requires.
  // The owner's powers live in the market's MarketGovernance; its records come from its MarketReputation.
  const governance = await viem.getContractAt("MarketGovernance", (await market.read.governance()) as Address);
  const writer = await viem.getContractAt("MarketReputation", (await market.read.reputation()) as Address);
  await gasOf("queueResolver", governance.write.queueResolver([resolverWallet.account.address]));
  await gasOf("queueDefaultArbiter", governance.write.queueDefaultArbiter([identity]));
  const defaults = (await governance.read.getDefaults()) as {
    minStake: bigint;
    gracePeriod: number;
    disputeWindow: number;
    bond: bigint;
  };
  await gasOf(
    "setDefaults",
    governance.write.setDefaults([defaults.minStake, 100, defaults.gracePeriod, defaults.disputeWindow, defaults.bond]),
  );

  let nextWorker = 0;
  async function makeWorkers(count: number) {
    const out: { address: Address; account: PrivateKeyAccount; agentId: bigint; register: bigint }[] = [];
    for (let i = 0; i < count; i++) {
      // A real key per worker: it registers the agent (so it is the agent's wallet) and signs its answers.
      const account = privateKeyToAccount(toHex(0xb0000 + nextWorker++, { size: 32 }));
      const address = account.address;
      await testClient.setBalance({ address, value: parseEther("100") });
      await testClient.impersonateAccount({ address });
      const wallet = await viem.getWalletClient(address);
      const hash = wallet.writeContract({
        address: identity,
        abi: registries.identityAbi,
        functionName: "register",
        args: [`ipfs://agent-${nextWorker}`],
        account: wallet.account,
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
      // The ERC-721 Transfer is the only registry event with four topics (from, to, tokenId).
      const log = receipt.logs.find((l) => l.address.toLowerCase() === identity.toLowerCase() && l.topics.length === 4);
      if (!log?.topics[3]) throw new Error("no Transfer log");
      out.push({ address, account, agentId: BigInt(log.topics[3]), register: receipt.gasUsed });
    }
    return out;
  }

  async function latestTimestamp() {
    return (await publicClient.getBlock()).timestamp;
  }

  const chainId = await publicClient.getChainId();

  async function runMarket(
    workers: Awaited<ReturnType<typeof makeWorkers>>,
    tag: string,
    signed = true,
  ): Promise<MarketRun> {
    const n = workers.length;
    const deadline = (await latestTimestamp()) + 3600n;
    const createGas = await gasOf(
      `createMarket ${tag}`,
      market.write.createMarket([`Will benchmark ${tag} settle within the gas targets?`, deadline], {
        account: creatorWallet.account,
        value: POOL,
      }),
    );
    const marketId = (await market.read.marketCount()) as bigint;
    let joinGas = 0n;
    for (const w of workers) {
      const g = await gasOf(
        `joinMarket ${tag}`,
        market.write.joinMarket([marketId, w.agentId], { account: w.address, value: STAKE }),
      );
      if (joinGas === 0n) joinGas = g;
    }
    await testClient.increaseTime({ seconds: 3601 });
    await testClient.mine({ blocks: 1 });
    const requestGas = await gasOf(`requestResolution ${tag}`, market.write.requestResolution([marketId]));

    // Uneven answers: mostly YES at varied confidence, some NO, a failure and an abstention every 7 seats.
    // Yes/No seats carry their agent's signature (and the hash of its reply) unless `signed` is false.
    const reports = await Promise.all(
      workers.map(async (w, i) => {
        const answer = i % 7 === 5 ? 0 : i % 7 === 6 ? 1 : i % 4 === 3 ? 2 : 3; // None, Abstained, No, Yes
        const scored = answer >= 2;
        const confidenceBps = scored ? 5000 + ((i * 937) % 5001) : 0;
        const sign = signed && scored;
        const replyHash: Hex = sign ? keccak256(toHex(`reply ${tag} ${i}`)) : zeroHash;
        const signature: Hex = sign
          ? await signAnswer(w.account, {
              chainId,
              market: market.address,
              marketId,
              agentId: w.agentId,
              answer: answer === 3 ? "yes" : "no",
              confidenceBps,
              replyHash,
            })
          : "0x";
        return {
          answer,
          confidenceBps,
          resQuality: scored ? (i * 13) % 101 : 0,
          srcQuality: scored ? (i * 29) % 101 : 0,
          analysisDepth: scored ? (i * 47) % 101 : 0,
          replyHash,
          signature,
        };
      }),
    );
    const bundleHash = keccak256(toHex(`bundle ${tag}`));
    const bond = ((await market.read.getMarketConfig([marketId])) as { bond: bigint }).bond;
    const proposeHash = await market.write.proposeResolution([marketId, 1, reports, bundleHash, BUNDLE_URI], {
      account: resolverWallet.account,
      value: bond,
      gas: SETTLE_GAS_LIMIT,
    });
    const proposeReceipt = await publicClient.waitForTransactionReceipt({ hash: proposeHash });
    if (proposeReceipt.status !== "success") throw new Error(`proposeResolution ${tag} reverted`);
    txs.push({ label: `proposeResolution ${tag}`, gas: proposeReceipt.gasUsed });
    const proposal = (await market.read.getProposal([marketId])) as { disputeEndsAt: bigint };
    const now = await latestTimestamp();
    await testClient.increaseTime({ seconds: Number(proposal.disputeEndsAt - now) + 1 });
    await testClient.mine({ blocks: 1 });
    const settleHash = await market.write.finalize([marketId], { gas: SETTLE_GAS_LIMIT });
    const settleReceipt = await publicClient.waitForTransactionReceipt({ hash: settleHash });
    if (settleReceipt.status !== "success") throw new Error(`finalize ${tag} reverted`);
    txs.push({ label: `finalize ${tag}`, gas: settleReceipt.gasUsed });
    let failed = countFailures(settleReceipt.logs);

    const publish: bigint[] = [];
    for (;;) {
      const [, pending] = (await writer.read.feedbackStatus([marketId])) as readonly [bigint, bigint];
      if (pending === 0n) break;
      if (publish.length > 20) throw new Error("publishFeedback makes no progress");
      const hash = await writer.write.publishFeedback([marketId, PUBLISH_BATCH], { gas: PUBLISH_GAS_LIMIT });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`publishFeedback ${tag} reverted`);
      txs.push({ label: `publishFeedback ${tag}`, gas: receipt.gasUsed });
      publish.push(receipt.gasUsed);
      failed += countFailures(receipt.logs);
    }
    // Admission is counted by whoever wants it (the agents' owners), once per market, after finalization.
    const countAdmissionGas = await gasOf(`countAdmission ${tag}`, writer.write.countAdmission([marketId]));
    const total = proposeReceipt.gasUsed + settleReceipt.gasUsed + publish.reduce((a, b) => a + b, 0n);
    const largest = [proposeReceipt.gasUsed, settleReceipt.gasUsed, ...publish].reduce((a, b) => (a > b ? a : b));
    return {
      workers: n,
      createMarket: createGas,
      joinMarket: joinGas,
      requestResolution: requestGas,
      proposeResolution: proposeReceipt.gasUsed,
      finalize: settleReceipt.gasUsed,
      publishFeedbackTxs: publish,
      resolutionTotal: total,
      perWorker: total / BigInt(n),
      largestTx: largest,
      feedbackFailed: failed,
      countAdmission: countAdmissionGas,
    };
  }

  const FEEDBACK_FAILED_TOPIC = keccak256(toHex("FeedbackFailed(uint256,uint256,string,bytes)"));
  function countFailures(logs: readonly { topics: readonly string[] }[]) {
    return logs.filter((l) => l.topics[0] === FEEDBACK_FAILED_TOPIC).length;
  }

  async function withdrawAll(workers: Awaited<ReturnType<typeof makeWorkers>>, tag: string) {
    let first = 0n;
    for (const w of workers) {
      const g = await gasOf(`withdraw ${tag}`, market.write.withdraw([], { account: w.address }));
      if (first === 0n) first = g;
    }
    return first;
  }

  // One-off first use of the registry (ours interns the feedback tags the first time they are used).
  const warmupWorkers = await makeWorkers(1);
  const warmup = await runMarket(warmupWorkers, "warmup");
  const registerGas = warmupWorkers[0].register;

  const results: Record<string, unknown>[] = [];
  const attested: Record<number, MarketRun> = {};
  const repeats: Record<number, MarketRun> = {};
  let withdrawGas = 0n;
  for (const size of SIZES) {
    const workers = await makeWorkers(size);
    const first = await runMarket(workers, `first-${size}`);
    const w = await withdrawAll(workers, `first-${size}`);
    if (withdrawGas === 0n) withdrawGas = w;
    const repeat = await runMarket(workers, `repeat-${size}`);
    await withdrawAll(workers, `repeat-${size}`);
    repeats[size] = repeat;
    if (size === 10 || size === 100) {
      // The same agents again with every seat attested (no signatures): the unsigned path's cost.
      attested[size] = await runMarket(workers, `attested-${size}`, false);
      await withdrawAll(workers, `attested-${size}`);
    }
    results.push({
      workers: size,
      first: printable(first),
      repeat: printable(repeat),
      firstTotal: first.resolutionTotal,
      repeatTotal: repeat.resolutionTotal,
    });
  }

  const largestTx = txs.reduce((a, b) => (a.gas > b.gas ? a : b));
  const at = (n: number) => results.find((r) => r.workers === n) as { firstTotal: bigint; repeatTotal: bigint };
  const firstMarginal = (at(100).firstTotal - at(10).firstTotal) / 90n;
  const repeatMarginal = (at(100).repeatTotal - at(10).repeatTotal) / 90n;
  for (const r of results) {
    delete (r as { firstTotal?: bigint }).firstTotal;
    delete (r as { repeatTotal?: bigint }).repeatTotal;
  }
  const attestedAt = (n: number) => attested[n] ?? repeats[n];
  const signedAt = (n: number) => repeats[n] ?? attested[n];
  const attestedSection = {
    note:
      "Repeat markets with no signature on any seat (attested: no slashing, no ERC-8004 record, no reputation entry); " +
      "signedSeat = extra proposeResolution gas per signed Yes/No seat (repeat, 10 -> 100 seats, signed minus attested).",
    markets: [10, 100].map((n) => ({ workers: n, repeat: printable(attestedAt(n) as MarketRun) })),
    marginalPerWorker: {
      repeat: Number(((attestedAt(100)?.resolutionTotal ?? 0n) - (attestedAt(10)?.resolutionTotal ?? 0n)) / 90n),
    },
    signedSeat: {
      proposeResolution: Number(
        ((signedAt(100)?.proposeResolution ?? 0n) -
          (signedAt(10)?.proposeResolution ?? 0n) -
          ((attestedAt(100)?.proposeResolution ?? 0n) - (attestedAt(10)?.proposeResolution ?? 0n))) /
          // Yes/No seats among seats 10..99 of the mix (None/Abstained every 7 seats are never signed)
          BigInt(countYesNo(100) - countYesNo(10)),
      ),
    },
  };
  const feedback = await feedbackPerRecord();
  const markets = results as unknown as MarketRow[];
  return {
    generatedAt: new Date().toISOString(),
    note:
      `Gas units on Hardhat/EDR (cancun), ${canonical ? "the canonical ERC-8004 registries (ERC1967 proxies)" : "our IdentityRegistry/ReputationRegistry"}. ` +
      "resolutionTotal = proposeResolution + finalize + all publishFeedback txs (no dispute); countAdmission (anyone's, after finalization) is not in it. " +
      "firstMarket = first settlement of fresh agents; repeat = same agents again after withdrawing.",
    config: {
      stakeWei: STAKE.toString(),
      poolWei: POOL.toString(),
      bundleURI: BUNDLE_URI,
      publishBatch: Number(PUBLISH_BATCH),
      inlineFeedbackWorkers: Number(await market.read.INLINE_FEEDBACK_WORKERS()),
      feedbackCallGas: Number(await writer.read.FEEDBACK_CALL_GAS()),
    },
    single: {
      identityRegister: Number(registerGas),
      createMarket: Number(warmup.createMarket),
      joinMarket: Number(results.length ? (results[0].first as { joinMarket: number }).joinMarket : 0),
      requestResolution: Number(warmup.requestResolution),
      withdraw: Number(withdrawGas),
    },
    registryWarmup: printable(warmup),
    markets: results,
    largestSingleTx: { label: largestTx.label, gas: Number(largestTx.gas) },
    marginalPerWorker: { first: Number(firstMarginal), repeat: Number(repeatMarginal) },
    attested: attestedSection,
    feedbackPerRecord: feedback,
    eip7825: eip7825(markets, Number(await writer.read.FEEDBACK_WORKER_MIN_GAS())),
    targets: canonical
      ? {
          v1FirstMarginal: Number(V1_CANONICAL_FIRST_MARGINAL),
          v1RepeatMarginal: Number(V1_CANONICAL_REPEAT_MARGINAL),
          v1Source: "issue 10 (v1: resolveMarket + 3 records per worker on the canonical registries)",
          anchorFirstMarginal: Number(ANCHOR_FIRST_MARGINAL),
          anchorRepeatMarginal: Number(ANCHOR_REPEAT_MARGINAL),
          anchorFirstTarget: Number(ANCHOR_FIRST_TARGET),
          anchorRepeatTarget: Number(ANCHOR_REPEAT_TARGET),
          anchorRatio: {
            first: Number((firstMarginal * 1000n) / ANCHOR_FIRST_MARGINAL) / 1000,
            repeat: Number((repeatMarginal * 1000n) / ANCHOR_REPEAT_MARGINAL) / 1000,
          },
          anchorSource: "issue 21 (<= 0.75x the CREsolver anchor's like-for-like marginal cost)",
          maxTx: Number(TARGET_MAX_TX),
          allMet:
            firstMarginal <= V1_CANONICAL_FIRST_MARGINAL &&
            repeatMarginal <= V1_CANONICAL_REPEAT_MARGINAL &&
            firstMarginal <= ANCHOR_FIRST_TARGET &&
            repeatMarginal <= ANCHOR_REPEAT_TARGET &&
            largestTx.gas <= TARGET_MAX_TX,
          maxTxOk: largestTx.gas <= TARGET_MAX_TX,
        }
      : {
          firstMarginal: Number(TARGET_FIRST_MARGINAL),
          repeatMarginal: Number(TARGET_REPEAT_MARGINAL),
          maxTx: Number(TARGET_MAX_TX),
          allMet:
            firstMarginal <= TARGET_FIRST_MARGINAL &&
            repeatMarginal <= TARGET_REPEAT_MARGINAL &&
            largestTx.gas <= TARGET_MAX_TX,
          maxTxOk: largestTx.gas <= TARGET_MAX_TX,
        },
  };

  /**
   * Lone `giveFeedback` transactions shaped as the market writes them, from a fresh EOA client to a fresh agent:
   * the client's first record for the agent, the second, then the next market's two. `execution` = gasUsed minus
   * the intrinsic 21,000 + calldata, i.e. roughly what the same call costs inside `finalize`.
   */
  async function feedbackPerRecord() {
    const [agent] = await makeWorkers(1);
    const client = getAddress(toHex(0xc0ffee, { size: 20 }));
    await testClient.setBalance({ address: client, value: parseEther("1") });
    await testClient.impersonateAccount({ address: client });
    const wallet = await viem.getWalletClient(client);
    const out: Record<string, { gasUsed: number; execution: number }> = {};
    const steps = [
      ["firstRecordNewClient", "correctness"],
      ["secondRecord", "quality"],
      ["nextMarketCorrectness", "correctness"],
      ["nextMarketQuality", "quality"],
    ] as const;
    for (const [label, tag1] of steps) {
      const hash = await wallet.writeContract({
        address: registries.reputation,
        abi: registries.reputationAbi,
        functionName: "giveFeedback",
        args: [agent.agentId, 87n, 0, tag1, "cresolver", "", BUNDLE_URI, keccak256(toHex("bundle"))],
        account: wallet.account,
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`giveFeedback ${label} reverted`);
      const tx = await publicClient.getTransaction({ hash });
      out[label] = { gasUsed: Number(receipt.gasUsed), execution: Number(receipt.gasUsed - intrinsicGas(tx.input)) };
    }
    return out;
  }
}

/** Yes/No seats among the first `n` of the bench's answer mix (seat i % 7 of 5 and 6 are None / Abstained). */
function countYesNo(n: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (i % 7 !== 5 && i % 7 !== 6) count++;
  return count;
}

type MarketRow = { workers: number; first: ReturnType<typeof printable>; repeat: ReturnType<typeof printable> };

/** 21,000 + calldata (EIP-2028: 4 per zero byte, 16 per other byte). */
function intrinsicGas(input: Hex): bigint {
  let gas = 21_000n;
  for (let i = 2; i < input.length; i += 2) gas += input.slice(i, i + 2) === "00" ? 4n : 16n;
  return gas;
}

/**
 * Largest market every transaction of which fits EIP-7825, extrapolated from the first-market runs (the dearer
 * case). Seats past the inline ones add only settlement work to `finalize` (their records go to publishFeedback),
 * so finalize(n) = finalize(100) + (n - 100) x the 32 -> 100 slope; the limit keeps FEEDBACK_WORKER_MIN_GAS of
 * headroom so the inline records are still written. publishFeedback takes a batch size, so it never bounds n.
 * The contract itself caps a market at MAX_WORKERS_CAP = 100 seats.
 */
function eip7825(markets: MarketRow[], minFeedbackGas: number) {
  const first = (n: number) => {
    const row = markets.find((m) => m.workers === n);
    if (!row) throw new Error(`no ${n}-seat run`);
    return row.first;
  };
  const limit = Number(TARGET_MAX_TX) - minFeedbackGas;
  const finalizePerSeat = (first(100).finalize - first(32).finalize) / 68;
  const proposePerSeat = (first(100).proposeResolution - first(32).proposeResolution) / 68;
  const published = first(100).publishFeedbackTxs;
  const publishPerSeat = published.reduce((a, b) => a + b, 0) / (100 - 10);
  const maxByFinalize = 100 + Math.floor((limit - first(100).finalize) / finalizePerSeat);
  const maxByPropose = 100 + Math.floor((limit - first(100).proposeResolution) / proposePerSeat);
  return {
    txLimit: Number(TARGET_MAX_TX),
    headroomForInlineFeedback: minFeedbackGas,
    finalizePerExtraSeat: Math.round(finalizePerSeat),
    proposePerExtraSeat: Math.round(proposePerSeat),
    publishFeedbackPerSeat: Math.round(publishPerSeat),
    maxSeatsByFinalize: maxByFinalize,
    maxSeatsByPropose: maxByPropose,
    maxSeatsPerPublishBatch: Math.floor(limit / publishPerSeat),
    largestSettleableMarket: Math.min(maxByFinalize, maxByPropose),
    contractSeatCap: 100,
  };
}

function printable(r: MarketRun) {
  return {
    workers: r.workers,
    createMarket: Number(r.createMarket),
    joinMarket: Number(r.joinMarket),
    requestResolution: Number(r.requestResolution),
    proposeResolution: Number(r.proposeResolution),
    finalize: Number(r.finalize),
    proposePerWorker: Number(r.proposeResolution / BigInt(r.workers)),
    finalizePerWorker: Number(r.finalize / BigInt(r.workers)),
    publishFeedbackTxs: r.publishFeedbackTxs.map(Number),
    resolutionTotal: Number(r.resolutionTotal),
    perWorker: Number(r.perWorker),
    perWorkerIncludingRequest: Number((r.resolutionTotal + r.requestResolution) / BigInt(r.workers)),
    largestTx: Number(r.largestTx),
    feedbackFailed: r.feedbackFailed,
    countAdmission: Number(r.countAdmission),
  };
}

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, "results", "gas.json");
const previous = existsSync(resultsFile)
  ? (JSON.parse(readFileSync(resultsFile, "utf8")) as { canonical?: { provenance?: Provenance } | null })
  : {};

// Load (and reject) the canonical artifacts before spending time on our registries.
const canonicalDir = process.env[CANONICAL_ENV];
const artifacts = canonicalDir ? loadCanonicalArtifacts(canonicalDir) : undefined;

const ours = await benchmark();
printSection("our registries", ours);

let canonical: (Section & { provenance: Provenance }) | { provenance?: Provenance } | null;
if (artifacts) {
  const section = await benchmark(artifacts);
  canonical = { provenance: { ...artifacts.provenance, measuredAt: section.generatedAt }, ...section };
  printSection(`canonical registries (${artifacts.provenance.repository} ${artifacts.provenance.commit})`, section);
} else {
  canonical = previous.canonical ?? null;
  const p = canonical?.provenance;
  console.log(
    `canonical ERC-8004 registries: skipped (set ${CANONICAL_ENV} to a folder of their compiled artifacts); ` +
      (p
        ? `keeping the figures measured ${p.measuredAt} on ${p.repository}@${p.commit}, ${p.compiler}`
        : "no earlier canonical figures to keep"),
  );
}

mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify({ ...ours, canonical }, null, 2)}\n`);

function printSection(title: string, s: Section) {
  console.log(`\n== ${title}`);
  console.log(
    "workers | first total | first/worker | repeat total | repeat/worker | propose/w | finalize/w | largest tx",
  );
  for (const r of s.markets) {
    const f = r.first as ReturnType<typeof printable>;
    const p = r.repeat as ReturnType<typeof printable>;
    console.log(
      `${String(r.workers).padStart(7)} | ${String(f.resolutionTotal).padStart(11)} | ${String(f.perWorker).padStart(12)} | ${String(p.resolutionTotal).padStart(12)} | ${String(p.perWorker).padStart(13)} | ${String(f.proposePerWorker).padStart(9)} | ${String(f.finalizePerWorker).padStart(10)} | ${Math.max(f.largestTx, p.largestTx)}`,
    );
  }
  console.log("single:", s.single, "warmup per worker:", s.registryWarmup.perWorker);
  console.log("marginal per worker (10 -> 100 seats):", s.marginalPerWorker);
  console.log("attested (unsigned) marginal:", s.attested.marginalPerWorker, "per signed seat:", s.attested.signedSeat);
  console.log("giveFeedback per record:", s.feedbackPerRecord);
  console.log("EIP-7825:", s.eip7825);
  if ("anchorRatio" in s.targets) {
    console.log("marginal vs the CREsolver anchor (first / repeat; target <= 0.75):", s.targets.anchorRatio);
  }
  console.log("largest tx:", s.largestSingleTx, "all targets met:", s.targets.allMet);
}
