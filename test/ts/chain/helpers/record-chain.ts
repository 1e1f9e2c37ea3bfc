/**
 * A real chain (Hardhat in-process) holding a track record: RecordChainProbe (contracts/test) extends the RECORDS
 * §3 hash chain in Solidity and emits `MarketRecorded` as the market does, so thousands of entries cost a few
 * transactions. Entries come from test/ts/core/record-fixtures.ts.
 */
import { network } from "hardhat";
import { type Address, type Hex, parseAbi, type PublicClient, type WalletClient } from "viem";
import type { RecordEntry } from "../../../../workflow/core/track-record.js";
import { entries as fixtureEntries } from "../../core/record-fixtures.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

export interface RecordChain {
  provider: Provider;
  publicClient: PublicClient;
  probe: Address;
  /** Entries recorded so far (what the chain holds), index order. */
  recorded: RecordEntry[];
  /** Records `n` more entries (`perTx` per transaction, one block each); seed varies the entries. */
  record(n: number, opts?: { perTx?: number; seats?: number; seed?: number }): Promise<void>;
  /** Mines `n` empty blocks. */
  mine(n: number): Promise<void>;
  snapshot(): Promise<string>;
  /** Reverts to a snapshot: the blocks after it are gone (the next ones get other hashes). */
  revert(id: string, recordedBefore: number): Promise<void>;
  recordHead(): Promise<{ count: number; head: Hex }>;
}

export async function deployRecordChain(): Promise<RecordChain> {
  const { viem, provider } = await network.create();
  const publicClient = (await viem.getPublicClient()) as unknown as PublicClient;
  const [wallet] = (await viem.getWalletClients()) as unknown as WalletClient[];
  const probe = (await viem.deployContract("RecordChainProbe")).address;
  const recorded: RecordEntry[] = [];
  const p = provider as unknown as Provider;
  const chain: RecordChain = {
    provider: p,
    publicClient,
    probe,
    recorded,
    async record(n, opts = {}) {
      const perTx = opts.perTx ?? 500;
      const made = fixtureEntries(n, {
        from: recorded.length,
        seats: opts.seats ?? 1,
        seed: opts.seed ?? recorded.length + 1,
      });
      for (let k = 0; k < made.length; k += perTx) {
        const batch = made.slice(k, k + perTx).map((e) => ({ ...e, marketId: BigInt(e.index + 1) }));
        const account = wallet.account;
        if (account === undefined) throw new Error("no account");
        const hash = await wallet.writeContract({
          address: probe,
          abi: probeAbi,
          functionName: "record",
          args: [
            batch[0].marketId,
            batch.map((e) => ({
              status: e.status,
              outcome: e.outcome,
              disputed: e.disputed,
              arbiter: e.arbiter,
              creator: e.creator,
              value: e.value,
              seats: e.seats,
            })),
          ],
          account,
          chain: wallet.chain,
          gas: 16_000_000n,
        });
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        if (receipt.status !== "success") throw new Error("record reverted");
        recorded.push(...batch);
      }
    },
    async mine(n) {
      await p.request({ method: "hardhat_mine", params: [`0x${n.toString(16)}`] });
    },
    async snapshot() {
      return (await p.request({ method: "evm_snapshot" })) as string;
    },
    async revert(id, recordedBefore) {
      if ((await p.request({ method: "evm_revert", params: [id] })) !== true) throw new Error("evm_revert failed");
      recorded.length = recordedBefore;
    },
    async recordHead() {
      const [count, head] = await publicClient.readContract({
        address: probe,
        abi: recordAbi,
        functionName: "recordHead",
      });
      return { count: Number(count), head: head.toLowerCase() as Hex };
    },
  };
  return chain;
}

/** The market's record event and view (docs/RECORDS.md §3), as RecordChainProbe has them. */
const recordAbi = parseAbi([
  "struct SeatRecord { uint256 agentId; uint8 answer; uint16 confidenceBps; bool signed; }",
  "struct RecordEntry { uint8 status; bool outcome; bool disputed; address arbiter; address creator; uint256 value; SeatRecord[] seats; }",
  "event MarketRecorded(uint256 indexed marketId, uint256 indexed index, bytes32 head, RecordEntry entry)",
  "function recordHead() view returns (uint256 count, bytes32 head)",
]);

const probeAbi = [
  ...recordAbi,
  {
    type: "function",
    name: "record",
    stateMutability: "nonpayable",
    inputs: [
      { name: "firstMarketId", type: "uint256" },
      {
        name: "entries",
        type: "tuple[]",
        components: [
          { name: "status", type: "uint8" },
          { name: "outcome", type: "bool" },
          { name: "disputed", type: "bool" },
          { name: "arbiter", type: "address" },
          { name: "creator", type: "address" },
          { name: "value", type: "uint256" },
          {
            name: "seats",
            type: "tuple[]",
            components: [
              { name: "agentId", type: "uint256" },
              { name: "answer", type: "uint8" },
              { name: "confidenceBps", type: "uint16" },
              { name: "signed", type: "bool" },
            ],
          },
        ],
      },
    ],
    outputs: [],
  },
] as const;
