/**
 * Private keys of Hardhat's development accounts: the public "test … junk" mnemonic, path
 * m/44'/60'/0'/0/i. Worthless outside a local chain — used by the demo and the tests, never as a
 * default anywhere a real key is expected.
 */
import { bytesToHex, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

export const LOCAL_DEV_MNEMONIC = "test test test test test test test test test test test junk";

/** Private key of development account `index` (0-19 are funded on a Hardhat chain). */
export function localDevKey(index: number): Hex {
  const key = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error(`no private key for development account ${index}`);
  return bytesToHex(key);
}
