/**
 * Hardhat's in-process EDR chain served over JSON-RPC/HTTP on 127.0.0.1 (network.createServer), with the
 * clients and the two write helpers every daemon test fixture needs. Everything goes through HTTP, so
 * daemons in this process, in a child process or behind a proxy all see the same chain.
 */
import { readFileSync } from "node:fs";
import { network } from "hardhat";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from "viem";
import { hardhat } from "viem/chains";

function artifact(path: string): { abi: Abi; bytecode: Hex } {
  return JSON.parse(readFileSync(new URL(`../../../artifacts/contracts/${path}`, import.meta.url), "utf8")) as {
    abi: Abi;
    bytecode: Hex;
  };
}

export interface ContractCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
  value?: bigint;
}

export async function serveLocalChain(pollingInterval: number) {
  const server = await network.createServer("default", "127.0.0.1", 0);
  const { address, port } = await server.listen();
  const rpcUrl = `http://${address}:${port}`;
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain: hardhat, transport, pollingInterval }) as PublicClient;
  const testClient = createTestClient({ chain: hardhat, mode: "hardhat", transport }) as unknown as TestClient;
  const chainId = await publicClient.getChainId();
  const chain = { ...hardhat, id: chainId };
  const accounts = (await publicClient.request({ method: "eth_accounts" } as never)) as Address[];
  const wallet = (account: Address) => createWalletClient({ chain, transport, account }) as WalletClient;

  /** Sends a transaction from an unlocked account and waits; a revert throws. */
  const send = async (from: Address, req: ContractCall) => {
    const hash = await wallet(from).writeContract({ ...req, account: from, chain } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== "success") throw new Error(`${req.functionName} reverted`);
    return receipt;
  };
  /** Deploys `artifacts/contracts/<path>` from accounts[0]. */
  const deploy = async (path: string, args: readonly unknown[]): Promise<Address> => {
    const a = artifact(path);
    const hash = await wallet(accounts[0]).deployContract({
      abi: a.abi,
      bytecode: a.bytecode,
      args,
      account: accounts[0],
      chain,
    } as never);
    return (await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).contractAddress!;
  };
  return { server, rpcUrl, transport, publicClient, testClient, chainId, chain, accounts, wallet, send, deploy };
}
