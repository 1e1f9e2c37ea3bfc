/**
 * The CRE workflow end to end against the real contracts on Hardhat's in-process chain: agents registered with
 * inline registration files and seated in a v2 ResolutionMarket; the bundled workflow runs in QuickJS, its two
 * Multicall3 reads answered with the chain's own eth_call results for each sub-call (the aggregation is the mock's,
 * the data is the chain's), its HTTP calls served by real agent functions; its signed report is delivered by the
 * forwarder account to the real CREReceiver, which proposes on the market. The same market through the Node
 * pipeline with the real chain ports gives the same bundle. Needs `npx hardhat build`.
 */
import { network } from "hardhat";
import { afterAll, beforeAll, expect } from "vitest";
import {
  decodeEventLog,
  encodeFunctionData,
  getAddress,
  getContract,
  keccak256,
  parseEther,
  toHex,
  type Abi,
  type Address,
  type Hex,
} from "viem";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { createAdapterRegistry } from "../../../protocols/adapter-registry.js";
import {
  creReceiverAbi,
  identityRegistryAbi,
  resolutionMarketAbi,
  marketGovernanceAbi,
} from "../../../workflow/chain/abis.js";
import { connectProvider } from "../../../workflow/chain/clients.js";
import { encodeCreMetadata } from "../../../workflow/chain/cre-report.js";
import { localDevKey } from "../../../workflow/chain/dev-accounts.js";
import { createChainPorts } from "../../../workflow/chain/ports.js";
import { DEFAULT_DON_LIMITS, donCompatibleHttp } from "../../../workflow/don-limits.js";
import { createRubricEvaluator } from "../../../workflow/evaluate/rubric.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/index.js";
import { runResolution } from "../workflow/helpers/checked-bundle.js";
import { encodeReport, VERDICT_CODE } from "../../../workflow/settle/reports.js";
import { identityReadAbi, marketReadAbi } from "../../../cre/resolution/abi.js";
import { brokenAgent, honestAgent, registrationUri, type Agent } from "../../../cre/test/agents.js";
import { startServer, type TestServer } from "../workflow/helpers/servers.js";

const CRE = "../../../cre/test/";
const BUNDLE = "virtual:cre-bundle";
type SdkTest = (title: string, fn: () => Promise<void>) => void;
const { test: sdkTest } = (await import(/* @vite-ignore */ "@chainlink/cre-sdk/test")) as unknown as { test: SdkTest };
type Lookup = (target: Hex, data: Hex) => { success: boolean; returnData: Hex };
interface Mocks {
  installMocks(
    source: Lookup,
    agents: Map<string, Agent>,
  ): { reports: { raw: Hex }[]; chainReads: number; http: unknown[] };
}
interface Host {
  runInQuickJS(
    bundle: string,
    config: unknown,
    request: { log: unknown },
  ): Promise<{ result: { ok: true; value: string } | { ok: false; error: string }; logs: string[] }>;
}
interface Run {
  requestLog(market: { market: Address; marketId: bigint }): unknown;
}

const WORKFLOW_ID = keccak256(toHex("cresolver-resolution"));
const WORKFLOW_NAME: Hex = "0x63726573736f6c766572";
const PROPOSED = 6;

let server: TestServer;
let http: SafeHttpClient;
const agents: Agent[] = [
  honestAgent(true, 0.9, "a"),
  honestAgent(true, 0.8, "b"),
  honestAgent(false, 0.6, "c"),
  brokenAgent("500"),
];
const router: Agent = (path, body) => {
  const m = /^\/agent-(\d+)(\/.*)$/.exec(path);
  const agent = m ? agents[Number(m[1]) - 1] : undefined;
  return agent ? agent(m![2]!, body) : { status: 404, headers: { "content-type": "application/json" }, body: "{}" };
};

beforeAll(async () => {
  server = await startServer((req, res) => {
    const reply = router(
      new URL(req.url ?? "/", "http://x").pathname,
      req.bodyText === "" ? null : JSON.parse(req.bodyText),
    );
    res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
    res.end(reply.body);
  });
  http = createSafeHttpClient({
    allowLoopback: true,
    maxResponseBytes: donCompatibleHttp(DEFAULT_DON_LIMITS).maxResponseBytes,
  });
});
afterAll(async () => {
  await http.close();
  await server.close();
});

sdkTest(
  "on-chain: the workflow's report is accepted by CREReceiver and proposes the Node pipeline's verdict and bundle",
  async () => {
    const { viem, provider } = await network.create();
    const publicClient = await viem.getPublicClient();
    const testClient = await viem.getTestClient();
    const [owner, forwarder, ...workers] = await viem.getWalletClients();
    const wait = async (hash: Hex) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      return receipt;
    };
    const typed = <A extends Abi>(address: Address, abi: A) =>
      getContract({ address: getAddress(address), abi, client: { public: publicClient, wallet: owner } });
    const identity = typed((await viem.deployContract("IdentityRegistry")).address, identityRegistryAbi);
    const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
    const market = typed(
      (await viem.deployContract("ResolutionMarket", [identity.address, reputation.address, owner.account.address]))
        .address,
      resolutionMarketAbi,
    );
    const receiverConfig = {
      workflowIds: [WORKFLOW_ID],
      workflowOwner: getAddress(owner.account.address),
      workflowName: WORKFLOW_NAME,
      allowAnyWorkflow: false,
    } as const;
    const receiver = typed(
      (
        await viem.deployContract("CREReceiver", [
          market.address,
          forwarder.account.address,
          owner.account.address,
          receiverConfig,
        ])
      ).address,
      creReceiverAbi,
    );
    const governance = typed(await market.read.governance(), marketGovernanceAbi);
    await wait(await governance.write.queueResolver([receiver.address]));
    const arbiter = await viem.deployContract("CommitteeArbiter", [[owner.account.address], 1n, [market.address]]);
    await wait(await governance.write.queueDefaultArbiter([arbiter.address]));
    await wait(await owner.sendTransaction({ to: receiver.address, value: parseEther("0.1") }));

    const deadline = (await publicClient.getBlock()).timestamp + 3600n;
    await wait(
      await market.write.createMarket(["Will the 2026 official inflation figure exceed 3%?", deadline], {
        value: parseEther("1"),
      }),
    );
    const marketId = await market.read.marketCount();
    const { minStake } = await market.read.getMarketConfig([marketId]);
    const agentIds: bigint[] = [];
    for (const [i, w] of workers.slice(0, agents.length).entries()) {
      const uri = registrationUri(`agent ${i + 1}`, `${server.url}/agent-${i + 1}`);
      const { result: agentId } = await publicClient.simulateContract({
        address: identity.address,
        abi: identity.abi,
        functionName: "register",
        args: [uri],
        account: w.account,
      });
      await wait(await identity.write.register([uri], { account: w.account }));
      await wait(await market.write.joinMarket([marketId, agentId], { account: w.account, value: minStake }));
      agentIds.push(agentId);
    }
    await testClient.setNextBlockTimestamp({ timestamp: deadline });
    await wait(await market.write.requestResolution([marketId]));

    // The chain's answers to every sub-call the workflow makes (the host cannot wait for an RPC mid-call).
    const replies = new Map<string, { success: boolean; returnData: Hex }>();
    const calls: [Address, Hex][] = [
      [market.address, encodeFunctionData({ abi: marketReadAbi, functionName: "getMarket", args: [marketId] })],
      [market.address, encodeFunctionData({ abi: marketReadAbi, functionName: "getWorkers", args: [marketId] })],
      [market.address, encodeFunctionData({ abi: marketReadAbi, functionName: "identityRegistry" })],
      ...agentIds.map((id): [Address, Hex] => [
        identity.address,
        encodeFunctionData({ abi: identityReadAbi, functionName: "tokenURI", args: [id] }),
      ]),
    ];
    for (const [to, data] of calls) {
      const r = await publicClient.call({ to, data }).then(
        (x) => ({ success: true, returnData: x.data ?? "0x" }),
        () => ({ success: false, returnData: "0x" as Hex }),
      );
      replies.set(`${to.toLowerCase()}:${data}`, r);
    }
    const lookup: Lookup = (target, data) => {
      const r = replies.get(`${target.toLowerCase()}:${data}`);
      if (r === undefined) throw new Error(`unplanned call to ${target}`);
      return r;
    };

    const [{ installMocks }, { runInQuickJS }, { requestLog }, { default: bundle }] = await Promise.all([
      import(/* @vite-ignore */ `${CRE}mocks.js`) as Promise<Mocks>,
      import(/* @vite-ignore */ `${CRE}quickjs-host.js`) as Promise<Host>,
      import(/* @vite-ignore */ `${CRE}run.js`) as Promise<Run>,
      import(/* @vite-ignore */ BUNDLE) as Promise<{ default: string }>,
    ]);
    const log = installMocks(lookup, new Map([[new URL(server.url).host, router]]));
    const config = {
      chainSelectorName: "ethereum-testnet-sepolia",
      chainId: await publicClient.getChainId(),
      marketAddress: market.address,
      receiverAddress: receiver.address,
      readAt: "latest",
      limits: { httpCalls: 15 },
    };
    const run = await runInQuickJS(bundle, config, { log: requestLog({ market: market.address, marketId }) });
    if (!run.result.ok) throw new Error(`${run.result.error}\n${run.logs.join("\n")}`);
    const summary = JSON.parse(run.result.value) as {
      status: string;
      verdict: "yes" | "no" | "invalid";
      bundleHash: Hex;
      bundle: string;
    };
    expect(summary.status).toBe("proposed");
    expect(log.chainReads).toBe(2);
    expect(log.reports).toHaveLength(1);

    // The Node pipeline on the same chain, with the real chain ports (and their track record: empty here).
    const ctx = await connectProvider({ provider, privateKey: localDevKey(0) });
    const chainPorts = createChainPorts({ ctx, marketAddress: market.address });
    const profile = donCompatibleHttp(DEFAULT_DON_LIMITS);
    const node = await runResolution(marketId, {
      market: chainPorts.market,
      directory: chainPorts.directory,
      trackRecord: chainPorts.trackRecord,
      fetcher: http.fetcher,
      adapters: createAdapterRegistry([
        createCresolverAdapter({
          http,
          resolveTimeoutMs: profile.resolveTimeoutMs,
          challengeTimeoutMs: profile.challengeTimeoutMs,
          retryDelayMs: 10,
        }),
      ]),
      evaluator: createRubricEvaluator(),
    });
    expect(summary.bundleHash).toBe(node.bundleHash);
    expect(summary.verdict).toBe(node.proposal.verdict);

    // Delivered by the forwarder: the receiver proposes with its float's bond.
    const metadata = encodeCreMetadata(WORKFLOW_ID, WORKFLOW_NAME, getAddress(owner.account.address));
    const receipt = await wait(
      await receiver.write.onReport([metadata, log.reports[0]!.raw], { account: forwarder.account }),
    );
    const info = await market.read.getMarket([marketId]);
    expect(info.status).toBe(PROPOSED);
    const proposal = await market.read.getProposal([marketId]);
    expect(proposal.proposer).toBe(receiver.address);
    expect(proposal.verdict).toBe(VERDICT_CODE[node.proposal.verdict]);
    expect(proposal.bundleHash).toBe(node.bundleHash);
    const proposed = receipt.logs
      .filter((l) => getAddress(l.address) === market.address)
      .map((l) => {
        try {
          return decodeEventLog({ abi: resolutionMarketAbi, data: l.data, topics: l.topics });
        } catch {
          return undefined;
        }
      })
      .find((e) => e?.eventName === "ResolutionProposed");
    const onChainReports = (
      (proposed?.args as { reports?: readonly Record<string, unknown>[] } | undefined)?.reports ?? []
    ).map((r) => ({ ...r }));
    expect(onChainReports).toEqual(node.proposal.reports.map(encodeReport));
  },
);
