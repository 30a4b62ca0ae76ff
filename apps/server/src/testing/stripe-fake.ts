/**
 * A local fake of the part of Stripe's HTTP API the server calls (customers, Checkout sessions, the billing portal,
 * subscriptions), a real HTTP server the server's Stripe client is pointed at through STRIPE_API_URL. Its Checkout
 * URL is a page of its own with a Pay button; paying completes the session, sends our server the signed webhook
 * Stripe would (signed by the Stripe library's test-header helper) and goes back to the session's success URL.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

export const FAKE_PRICES = {
  premium: { id: "price_premium_monthly", unit_amount: 499, currency: "usd" },
  extension7: { id: "price_extension_7d", unit_amount: 99, currency: "usd" },
  extension30: { id: "price_extension_30d", unit_amount: 299, currency: "usd" },
} as const;

const DAY_S = 24 * 60 * 60;

type Json = Record<string, unknown>;

export interface FakeSession extends Json {
  id: string;
  object: "checkout.session";
  mode: string;
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid" | "no_payment_required";
  client_reference_id: string | null;
  customer: string | null;
  subscription: string | null;
  amount_total: number;
  currency: string;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  url: string;
  price: string;
}

export interface FakeSubscription extends Json {
  id: string;
  object: "subscription";
  status: string;
  customer: string;
  metadata: Record<string, string>;
  cancel_at_period_end: boolean;
  items: { object: "list"; data: Array<{ id: string; current_period_end: number; price: { id: string } }> };
}

const newId = (prefix: string) => `${prefix}_test_${randomBytes(9).toString("hex")}`;

/** Reads Stripe's form encoding (`a[b][0][c]=v`) into nested objects; numeric keys stay object keys. */
function parseForm(text: string): Json {
  const out: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replace(/\]/g, "").split("[");
    let node = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else {
        node[part] ??= {};
        node = node[part] as Json;
      }
    });
  }
  return out;
}

const asRecord = (value: unknown): Record<string, string> =>
  value && typeof value === "object"
    ? (Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) as Record<string, string>)
    : {};

export class StripeFake {
  readonly webhookSecret = `whsec_${randomBytes(16).toString("hex")}`;
  readonly sessions = new Map<string, FakeSession>();
  readonly subscriptions = new Map<string, FakeSubscription>();
  /** While true, every API call answers 503, as Stripe down would. */
  down = false;
  readonly customers = new Map<string, Json>();
  /** Our server's webhook URL; set once the server listens. */
  webhookUrl = "";
  url = "";
  private readonly stripe = new Stripe("sk_test_fake");
  private readonly server = createServer((req, res) => void this.handle(req, res));

  /** `now`: seconds since the epoch as the fake sees them (a test's moved clock). */
  constructor(private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000)) {}

  static async start(nowSeconds?: () => number): Promise<StripeFake> {
    const fake = new StripeFake(nowSeconds);
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The settings that turn payments on against this fake. */
  env(): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: "sk_test_fake",
      STRIPE_WEBHOOK_SECRET: this.webhookSecret,
      STRIPE_PRICE_PREMIUM_MONTHLY: FAKE_PRICES.premium.id,
      STRIPE_PRICE_EXTENSION_7D: FAKE_PRICES.extension7.id,
      STRIPE_PRICE_EXTENSION_30D: FAKE_PRICES.extension30.id,
      STRIPE_API_URL: this.url,
    };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Pays a session as a buyer would: complete, paid (unless told otherwise), a subscription made for a subscription
   * Checkout, and the checkout.session.completed webhook sent. Answers our server's reply to it.
   */
  async pay(sessionId: string, change: { amount_total?: number; payment_status?: FakeSession["payment_status"]; send?: boolean } = {}) {
    const session = this.sessionOf(sessionId);
    session.status = "complete";
    session.payment_status = change.payment_status ?? "paid";
    if (change.amount_total !== undefined) session.amount_total = change.amount_total;
    if (session.mode === "subscription" && !session.subscription && session.payment_status === "paid") {
      const subscription = this.createSubscription(session.customer ?? newId("cus"), session.metadata, session.price);
      session.subscription = subscription.id;
    }
    if (change.send === false) return undefined;
    return this.send("checkout.session.completed", this.present(session));
  }

  /** Changes a subscription as Stripe would (a renewal, a cancellation); send its event yourself, in any order. */
  updateSubscription(
    id: string,
    change: Partial<Pick<FakeSubscription, "status" | "cancel_at_period_end">> & { current_period_end?: number },
  ) {
    const subscription = this.subscriptions.get(id);
    if (!subscription) throw new Error(`no subscription ${id}`);
    if (change.status) subscription.status = change.status;
    if (change.cancel_at_period_end !== undefined) subscription.cancel_at_period_end = change.cancel_at_period_end;
    for (const item of subscription.items.data) if (change.current_period_end) item.current_period_end = change.current_period_end;
    return structuredClone(subscription);
  }

  /**
   * Sends a signed event to our server. `object`: the event's data.object (a snapshot, possibly older than what the
   * API answers now). `timestamp` (seconds) and `secret` change the signature, for the refusals.
   */
  async send(
    type: string,
    object: Json,
    options: { id?: string; created?: number; timestamp?: number; secret?: string; signature?: string } = {},
  ) {
    const event = {
      id: options.id ?? newId("evt"),
      object: "event",
      type,
      created: options.created ?? this.nowSeconds(),
      data: { object },
    };
    const payload = JSON.stringify(event);
    const header =
      options.signature ??
      this.stripe.webhooks.generateTestHeaderString({
        payload,
        secret: options.secret ?? this.webhookSecret,
        ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
      });
    const response = await fetch(this.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": header },
      body: payload,
    });
    const text = await response.text();
    return { event, status: response.status, body: (text ? JSON.parse(text) : undefined) as unknown };
  }

  /** The one session made most recently (what a test's checkout just opened). */
  lastSession(): FakeSession {
    const last = [...this.sessions.values()].at(-1);
    if (!last) throw new Error("no checkout session yet");
    return last;
  }

  private sessionOf(id: string): FakeSession {
    const session = this.sessions.get(id);
    if (!session) throw new Error(`no session ${id}`);
    return session;
  }

  private createSubscription(customer: string, metadata: Record<string, string>, price: string): FakeSubscription {
    const subscription: FakeSubscription = {
      id: newId("sub"),
      object: "subscription",
      status: "active",
      customer,
      metadata,
      cancel_at_period_end: false,
      items: { object: "list", data: [{ id: newId("si"), current_period_end: this.nowSeconds() + 30 * DAY_S, price: { id: price } }] },
    };
    this.subscriptions.set(subscription.id, subscription);
    return subscription;
  }

  /** A session as the API shows it; `line_items` when asked to expand them. */
  private present(session: FakeSession, expandLineItems = false): Json {
    const { price, ...shown } = session;
    if (!expandLineItems) return structuredClone(shown);
    const known = Object.values(FAKE_PRICES).find((p) => p.id === price);
    return {
      ...structuredClone(shown),
      line_items: {
        object: "list",
        data: [
          {
            id: newId("li"),
            quantity: 1,
            amount_total: session.amount_total,
            price: { id: price, object: "price", unit_amount: known?.unit_amount ?? null, currency: known?.currency ?? "usd" },
          },
        ],
      },
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = parseForm(Buffer.concat(chunks).toString());
    const url = new URL(req.url ?? "/", this.url);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (this.down && url.pathname.startsWith("/v1/")) return json(503, { error: { type: "api_error", message: "Stripe is down (fake)" } });
    const missing = () => json(404, { error: { type: "invalid_request_error", message: `No such object: ${url.pathname}` } });
    const route = `${req.method} ${url.pathname}`;
    /** The id a route of the form `re` names in this request, if it is that route. */
    const idIn = (re: RegExp) => route.match(re)?.[1];
    const sessionRead = idIn(/^GET \/v1\/checkout\/sessions\/([\w]+)$/);
    const subscriptionRead = idIn(/^GET \/v1\/subscriptions\/([\w]+)$/);
    const subscriptionCancel = idIn(/^DELETE \/v1\/subscriptions\/([\w]+)$/);
    const payPage = idIn(/^GET \/pay\/([\w]+)$/);
    const payPost = idIn(/^POST \/pay\/([\w]+)$/);
    const portalPage = idIn(/^GET \/portal\/([\w]+)$/);

    if (route === "POST /v1/customers") {
      const customer = { id: newId("cus"), object: "customer", email: body.email ?? null, metadata: asRecord(body.metadata) };
      this.customers.set(customer.id, customer);
      return json(200, customer);
    }
    if (route === "POST /v1/checkout/sessions") {
      const lines = (body.line_items ?? {}) as Record<string, { price?: string }>;
      const price = lines["0"]?.price ?? "";
      const known = Object.values(FAKE_PRICES).find((p) => p.id === price);
      if (!known) return json(400, { error: { type: "invalid_request_error", message: `No such price: '${price}'` } });
      const id = newId("cs");
      const session: FakeSession = {
        id,
        object: "checkout.session",
        mode: String(body.mode),
        status: "open",
        payment_status: "unpaid",
        client_reference_id: typeof body.client_reference_id === "string" ? body.client_reference_id : null,
        customer: typeof body.customer === "string" ? body.customer : null,
        subscription: null,
        amount_total: known.unit_amount,
        currency: known.currency,
        metadata: asRecord(body.metadata),
        success_url: String(body.success_url).replace("{CHECKOUT_SESSION_ID}", id),
        cancel_url: String(body.cancel_url),
        url: `${this.url}/pay/${id}`,
        price,
      };
      this.sessions.set(id, session);
      return json(200, this.present(session));
    }
    if (sessionRead !== undefined) {
      const id = sessionRead;
      const session = this.sessions.get(id);
      if (!session) return missing();
      return json(200, this.present(session, decodeURIComponent(url.search).includes("line_items")));
    }
    if (subscriptionRead !== undefined) {
      const id = subscriptionRead;
      const subscription = this.subscriptions.get(id);
      return subscription ? json(200, subscription) : missing();
    }
    if (subscriptionCancel !== undefined) {
      const subscription = this.subscriptions.get(subscriptionCancel);
      if (!subscription) return missing();
      subscription.status = "canceled";
      return json(200, subscription);
    }
    if (route === "POST /v1/billing_portal/sessions") {
      const id = newId("bps");
      return json(200, {
        id,
        object: "billing_portal.session",
        customer: body.customer,
        return_url: body.return_url,
        url: `${this.url}/portal/${id}`,
      });
    }
    if (payPage !== undefined) {
      const id = payPage;
      const session = this.sessions.get(id);
      if (!session) return missing();
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(
        `<!doctype html><html lang="en"><title>Fake Checkout</title><main><h1>Fake Checkout</h1>` +
          `<p>${(session.amount_total / 100).toFixed(2)} ${session.currency.toUpperCase()}</p>` +
          `<form method="post" action="/pay/${session.id}"><button type="submit">Pay</button></form></main></html>`,
      );
    }
    if (payPost !== undefined) {
      const id = payPost;
      const session = this.sessions.get(id);
      if (!session) return missing();
      await this.pay(session.id);
      res.writeHead(303, { location: session.success_url });
      return res.end();
    }
    if (portalPage !== undefined) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(`<!doctype html><html lang="en"><title>Fake billing portal</title><main><h1>Billing portal</h1></main></html>`);
    }
    return missing();
  }
}
