// The browser check the edge serves in the local run (tests/system/test_browser.py opens it):
// a device sign-in, then DescribeRules with its token, both through the edge, by the
// generated SDK and connect-web. ?transport=connect uses Connect (binary) instead of gRPC-Web.
import { createClient, ConnectError, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { AccountService } from "../gen/domino/account/v1/account_service_pb.js";
import { MatchService } from "../gen/domino/match/v1/match_service_pb.js";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";

const params = new URLSearchParams(location.search);
// Served at / by `domino up`, at /web/ on the public host: the APIs are beside the page.
const baseUrl = params.get("edge") ?? location.origin + (location.pathname.startsWith("/web/") ? "/web" : "");
const transport: Transport = params.get("transport") === "connect"
  ? createConnectTransport({ baseUrl, useBinaryFormat: true })
  : createGrpcWebTransport({ baseUrl });
const status = document.getElementById("status")!;
const families = document.getElementById("families")!;

function randomText(bytes: number, hex: boolean): string {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  if (hex) return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
  return btoa(String.fromCharCode(...data)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function run(): Promise<void> {
  const accounts = createClient(AccountService, transport);
  const signedIn = await accounts.signInWithDevice(
    { deviceId: randomText(24, false), deviceSecret: randomText(32, true), displayName: `Browser ${randomText(3, true)}` },
    { timeoutMs: 10_000 });
  const headers = { authorization: `Bearer ${signedIn.session?.accessToken ?? ""}` };
  status.textContent = "Signed in; asking for the rules…";
  const rules = await createClient(MatchService, transport).describeRules({}, { headers, timeoutMs: 10_000 });
  for (const family of rules.families) {
    const item = document.createElement("li");
    item.textContent = family.name;
    families.append(item);
  }
  status.textContent = `Signed in; ${rules.families.length} rule families.`;
}

run().then(
  () => { document.body.dataset.done = "ok"; },
  (e: unknown) => {
    const error = ConnectError.from(e);
    const reason = error.findDetails(ErrorInfoSchema)[0]?.reason;
    status.textContent = `Failed: ${error.code} ${error.rawMessage}${reason ? ` (${reason})` : ""}`;
    document.body.dataset.done = "error";
  });
