/** The admin API's bodies, as far as the page reads them (unknown fields are ignored). */
export interface HistoryEntry {
  status: number;
  message: string;
  at: string;
}

export interface AdminOrder {
  id: string;
  reference: string;
  status: number;
  message: string;
  service: string;
  account: string;
  amount: number;
  currency: string;
  shortcode: string | null;
  createdAt: string;
  updatedAt: string;
  history: HistoryEntry[];
  customerId: string;
  idempotencyKey: string | null;
}

export interface Wallet {
  shortcode: string | null;
  balance: number;
  currency: string;
  default: boolean;
}

export interface AdminCustomer {
  id: string;
  name: string;
  tokens: string[];
  apiKey: string;
  wallets: Wallet[];
  webhook: { url: string; secrets: string[]; disabled: boolean } | null;
}

export interface JournalEntry {
  id: number;
  requestId: string;
  at: number;
  wallTime: string;
  method: string;
  path: string;
  status: number;
  customerId: string | null;
  fired: string[];
  durationMs: number;
}

export interface Attempt {
  number: number;
  trigger: string;
  sentAt: string | null;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  outcome: string;
}

export interface Delivery {
  id: string;
  kind: string;
  status: number;
  state: string;
  attemptCount: number;
  attempts?: Attempt[];
}

export interface ScenarioListing {
  loaded: { name: string; description: string; rules: string[]; source: string }[];
  active: { global: string[]; customers: Record<string, string[]> };
}

export interface Schedule {
  mode: "real" | "virtual";
  now: string;
  pendingEvents: number;
  pendingOrders: number;
  nextOrderStepAt: string | null;
  nextWebhookAttemptAt: string | null;
  configuredTiming: { text: string; lowMs: number; highMs: number };
}
