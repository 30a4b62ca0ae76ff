/**
 * A stand-in for GitHub's OAuth endpoints on a loopback port, as a real HTTP server: authorize (the person
 * "signed in" at GitHub is the fake's `signedIn` user, approved at once), the code exchange (client secret,
 * redirect URI and PKCE checked, errors answered with 200 as GitHub does), `/user` and `/user/emails`.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";

export interface FakeGithubUser {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface FakeGithub {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Who is signed in at "GitHub" when the browser arrives at authorize. */
  signedIn: FakeGithubUser | undefined;
  close(): Promise<void>;
}

export async function startFakeGithub(): Promise<FakeGithub> {
  const codes = new Map<string, { user: FakeGithubUser; redirectUri: string; challenge: string }>();
  const tokens = new Map<string, FakeGithubUser>();
  const fake: FakeGithub = {
    url: "",
    clientId: "gh-test-client",
    clientSecret: "gh-test-secret",
    signedIn: undefined,
    close: async () => {},
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/login/oauth/authorize") {
      const redirectUri = url.searchParams.get("redirect_uri") ?? "";
      if (url.searchParams.get("client_id") !== fake.clientId || !fake.signedIn) return json(400, { error: "not signed in" });
      const code = randomBytes(16).toString("hex");
      codes.set(code, { user: fake.signedIn, redirectUri, challenge: url.searchParams.get("code_challenge") ?? "" });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (req.method === "POST" && url.pathname === "/login/oauth/access_token") {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        const form = new URLSearchParams(body);
        if (form.get("client_id") !== fake.clientId || form.get("client_secret") !== fake.clientSecret) {
          return json(200, { error: "incorrect_client_credentials" });
        }
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        const challenge = createHash("sha256").update(verifier).digest("base64url");
        if (!grant || grant.redirectUri !== form.get("redirect_uri") || grant.challenge !== challenge) {
          return json(200, { error: "bad_verification_code" });
        }
        const token = randomBytes(16).toString("hex");
        tokens.set(token, grant.user);
        return json(200, { access_token: token, token_type: "bearer", scope: "read:user,user:email" });
      });
      return;
    }
    const user = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (req.method === "GET" && url.pathname === "/user") {
      return user ? json(200, { id: user.id, login: user.login, name: user.name }) : json(401, { message: "Bad credentials" });
    }
    if (req.method === "GET" && url.pathname === "/user/emails") {
      return user
        ? json(
            200,
            user.emails.map((e) => ({ ...e, visibility: null })),
          )
        : json(401, { message: "Bad credentials" });
    }
    json(404, { message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  fake.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
