/**
 * A real stack for the dispute end-to-end tests on Hardhat's in-process chain: our ERC-8004 registries,
 * ResolutionMarket v2 and BettingMarket (hardhat-viem, typed from the artifacts), three seated workers, two
 * bettors, and a market whose arbiter is the one under test. `proposeWrong` posts the captured panel's wrong
 * NO proposal (the truth is YES). Needs `npx hardhat build`.
 */
import { network } from "hardhat";
import { expect } from "vitest";
import {
  getAddress,
  getContract,
  keccak256,
  parseEther,
  toHex,
  zeroAddress,
  type Abi,
  type Address,
  type Hex,
  zeroHash,
} from "viem";
import {
  bettingMarketAbi,
  committeeArbiterAbi,
  identityRegistryAbi,
  resolutionMarketAbi,
  umaArbiterAbi,
  marketGovernanceAbi,
} from "../../../workflow/chain/abis.js";
import { connectProvider, type ChainContext } from "../../../workflow/chain/clients.js";
import { localDevKey } from "../../../workflow/chain/dev-accounts.js";
import { signedReports } from "../../helpers/signed-seats.js";

export const VERDICT = { no: 0, yes: 1, invalid: 2 } as const;
export const STATUS = { resolved: 3, invalid: 4, proposed: 6, disputed: 7 } as const;
export const ANSWER = { none: 0, abstained: 1, no: 2, yes: 3 } as const;
/** The market's bond; BettingMarket takes bets up to 10 × it (the 3 ETH the fixture bets). */
export const MARKET_BOND = parseEther("0.3");
export const POOL = parseEther("1");
export const BUNDLE_URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/bundle.json";
export const BUNDLE_HASH = keccak256(toHex("the panel's evidence bundle"));

type Conn = Awaited<ReturnType<typeof network.create>>;
export type Viem = Conn["viem"];

/** Hardhat's default accounts by role. */
export const ROLE = {
  deployer: 0,
  creator: 1,
  resolver: 2,
  disputer: 3,
  w1: 4,
  w2: 5,
  w3: 6,
  yesBettor: 7,
  noBettor: 8,
  m1: 9,
  m2: 10,
  m3: 11,
} as const;

export async function startStack() {
  const conn = await network.create();
  const { viem } = conn;
  const publicClient = await viem.getPublicClient();
  const testClient = await viem.getTestClient();
  const wallets = await viem.getWalletClients();
  const addr = (role: keyof typeof ROLE): Address => getAddress(wallets[ROLE[role]]!.account.address);
  const ctx = async (role: keyof typeof ROLE): Promise<ChainContext> =>
    connectProvider({ provider: conn.provider, privateKey: localDevKey(ROLE[role]) });

  /** A contract handle typed by our generated ABIs (hardhat-viem's own types are not in the tsconfig). */
  const typed = <A extends Abi>(address: Address, abi: A) =>
    getContract({ address: getAddress(address), abi, client: { public: publicClient, wallet: wallets[0]! } });
  const identity = typed((await viem.deployContract("IdentityRegistry", [])).address, identityRegistryAbi);
  const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
  const market = typed(
    (await viem.deployContract("ResolutionMarket", [identity.address, reputation.address, addr("deployer")])).address,
    resolutionMarketAbi,
  );
  const betting = typed((await viem.deployContract("BettingMarket", [market.address])).address, bettingMarketAbi);
  const wait = async (hash: Hex) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    return receipt;
  };
  const governance = typed(await market.read.governance(), marketGovernanceAbi);
  await wait(await governance.write.queueResolver([addr("resolver")]));
  /** The owner puts a freshly deployed arbiter on the deployment's allow-list (bootstrap: at once). */
  const allow = async (arbiter: Address) => {
    await wait(await governance.write.queueArbiter([arbiter]));
    return arbiter;
  };
  const deployCommittee = async (members: Address[], threshold: bigint) =>
    typed(
      await allow((await viem.deployContract("CommitteeArbiter", [members, threshold, [market.address]])).address),
      committeeArbiterAbi,
    );
  const deployUmaArbiter = async (oracle: Address, currency: Address, bond: bigint, liveness: number) =>
    typed(
      await allow(
        (await viem.deployContract("UmaArbiter", [oracle, currency, bond, liveness, [market.address]])).address,
      ),
      umaArbiterAbi,
    );

  async function increaseTime(seconds: number) {
    await testClient.increaseTime({ seconds });
    await testClient.mine({ blocks: 1 });
  }

  /** Opens a market judged by `arbiter`, seats w1..w3, takes 1 ETH on YES and 2 ETH on NO, requests resolution. */
  async function openMarket(arbiter: Address, question = "Will the committee of the test be right?") {
    const deadline = (await publicClient.getBlock()).timestamp + 3600n;
    const params = {
      admission: 0,
      minCorrectness: 0,
      minSettled: 0,
      minStake: 0n,
      maxWorkers: 0,
      disputeWindow: 3600,
      bond: MARKET_BOND,
      arbiter,
      allowedAgents: [],
    } as const;
    await wait(
      await market.write.createMarketWith([question, deadline, params], { account: addr("creator"), value: POOL }),
    );
    const marketId = await market.read.marketCount();
    const config = await market.read.getMarketConfig([marketId]);
    expect(config.arbiter).toBe(arbiter);
    expect(config.bond).toBe(MARKET_BOND);
    const stake = config.minStake;
    const workers: { address: Address; agentId: bigint }[] = [];
    for (const role of ["w1", "w2", "w3"] as const) {
      const account = addr(role);
      const { result: agentId } = await publicClient.simulateContract({
        address: identity.address,
        abi: identity.abi,
        functionName: "register",
        args: ["ipfs://agent"],
        account,
      });
      await wait(await identity.write.register(["ipfs://agent"], { account }));
      await wait(await market.write.joinMarket([marketId, agentId], { account, value: stake }));
      workers.push({ address: account, agentId });
    }
    await wait(await betting.write.bet([marketId, 1], { account: addr("yesBettor"), value: parseEther("1") }));
    await wait(await betting.write.bet([marketId, 0], { account: addr("noBettor"), value: parseEther("2") }));
    await increaseTime(3601);
    await wait(await market.write.requestResolution([marketId]));
    return { marketId, stake, workers };
  }

  /** The captured panel's proposal: NO (the truth is YES); w1 and w3 answered NO, w2 answered YES. */
  async function proposeWrong(marketId: bigint) {
    const unsigned = [
      {
        answer: ANSWER.no,
        confidenceBps: 9000,
        resQuality: 80,
        srcQuality: 70,
        analysisDepth: 60,
        replyHash: zeroHash,
        signature: "0x" as const,
      },
      {
        answer: ANSWER.yes,
        confidenceBps: 8000,
        resQuality: 90,
        srcQuality: 85,
        analysisDepth: 75,
        replyHash: zeroHash,
        signature: "0x" as const,
      },
      {
        answer: ANSWER.no,
        confidenceBps: 7000,
        resQuality: 60,
        srcQuality: 50,
        analysisDepth: 40,
        replyHash: zeroHash,
        signature: "0x" as const,
      },
    ];
    // Each worker signs its own answer (as the reference agent does): signed seats are the ones a ruling can slash.
    const [, agentIds] = await market.read.getWorkers([marketId]);
    const reports = await signedReports(
      { chainId: await publicClient.getChainId(), market: market.address, marketId },
      (["w1", "w2", "w3"] as const).map((role, i) => {
        const agentId = agentIds[i];
        if (agentId === undefined) throw new Error(`seat ${i} is empty`);
        return { agentId, key: localDevKey(ROLE[role]) };
      }),
      unsigned,
    );
    await wait(
      await market.write.proposeResolution([marketId, VERDICT.no, reports, BUNDLE_HASH, BUNDLE_URI], {
        account: addr("resolver"),
        value: MARKET_BOND,
      }),
    );
    expect((await market.read.getMarket([marketId])).status).toBe(STATUS.proposed);
  }

  /** The market's balance equals what it owes the given accounts (nothing else is owed in these tests). */
  async function expectMarketOwes(accounts: Address[]) {
    let owed = 0n;
    for (const a of new Set(accounts)) owed += await market.read.pendingWithdrawal([a]);
    expect(await publicClient.getBalance({ address: market.address })).toBe(owed);
  }

  /** After an overturn to YES: bettors on YES take the whole 3 ETH pool, NO gets nothing. */
  async function expectBettingPaysYes(marketId: bigint) {
    expect(await betting.read.claimable([marketId, addr("yesBettor")])).toBe(parseEther("3"));
    expect(await betting.read.claimable([marketId, addr("noBettor")])).toBe(0n);
    const before = await publicClient.getBalance({ address: addr("yesBettor") });
    const receipt = await wait(await betting.write.claim([marketId], { account: addr("yesBettor") }));
    const after = await publicClient.getBalance({ address: addr("yesBettor") });
    expect(after - before + receipt.gasUsed * receipt.effectiveGasPrice).toBe(parseEther("3"));
  }

  return {
    conn,
    viem,
    publicClient,
    testClient,
    addr,
    ctx,
    typed,
    identity,
    reputation,
    market,
    governance,
    betting,
    deployCommittee,
    deployUmaArbiter,
    wait,
    increaseTime,
    openMarket,
    proposeWrong,
    expectMarketOwes,
    expectBettingPaysYes,
    zeroAddress,
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;
