/**
 * Money moved behind the simulator's back, as the deliberately broken
 * systems of the tests move it (a second debit, a second refund): read the
 * wallet, then set its balance. Not atomic, which a defect need not be; the
 * Store has no bare debit or credit, since the simulator only moves money by
 * placing an order or refunding one.
 */
import type { Store } from "../../src/domain/ports.ts";

/** Adds `cents` (negative: takes them, unless the wallet holds too little); false when nothing changed. */
export async function changeWallet(
  store: Store,
  customerId: string,
  shortcode: string | null,
  cents: number,
): Promise<boolean> {
  const wallet = (await store.getCustomer(customerId))?.wallets.find((held) => held.shortcode === shortcode);
  if (wallet === undefined || wallet.balanceCents + cents < 0) return false;
  await store.setWalletBalance(customerId, shortcode, wallet.balanceCents + cents);
  return true;
}
