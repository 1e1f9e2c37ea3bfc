/** Private keys of Hardhat's default accounts (the public "test … junk" mnemonic), derived, not typed in. */
import { bytesToHex, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

const MNEMONIC = "test test test test test test test test test test test junk";

export function hardhatKey(index: number): Hex {
  const key = mnemonicToAccount(MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error("no key");
  return bytesToHex(key);
}
