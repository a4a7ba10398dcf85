// The browser check the edge serves in the local run (tests/system/test_browser.py opens it):
// through the edge, by the generated SDK and connect-web alone, it plays a whole practice
// match as docs/clients.md says (client/practice.ts) and shows its result where the test
// reads it. ?transport=connect uses Connect (binary) instead of gRPC-Web; ?target=shortest
// asks for the shortest target the default family offers (a quick match).
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { AccountService } from "../gen/domino/account/v1/account_service_pb.js";
import { MatchService, type MatchView, type Tile } from "../gen/domino/match/v1/match_service_pb.js";
import { MatchmakingService } from "../gen/domino/matchmaking/v1/matchmaking_service_pb.js";
import { playPractice, type PracticeSummary } from "../client/practice.js";
import { reasonOf } from "../client/retry.js";
import { newDevicePair, randomHex } from "../client/session.js";

const params = new URLSearchParams(location.search);
// Served at / by `domino up`, at /web/ on the public host: the APIs are beside the page.
const baseUrl = params.get("edge") ?? location.origin + (location.pathname.startsWith("/web/") ? "/web" : "");
const transport: Transport = params.get("transport") === "connect"
  ? createConnectTransport({ baseUrl, useBinaryFormat: true })
  : createGrpcWebTransport({ baseUrl });

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found;
}

function show(id: string, text: string): void {
  element(id).textContent = text;
}

const tile = (t: Tile): string => `${t.low}|${t.high}`;

function showView(view: MatchView): void {
  show("round", String(view.roundNumber));
  show("scores", view.scores.join(" – "));
  show("hand", view.hand.map(tile).join(" ") || "(empty)");
}

function showResult(summary: PracticeSummary): void {
  show("match-id", summary.matchId);
  show("final-scores", summary.scores.join(" – "));
  const yours = summary.history?.result === "MATCH_RESULT_WON" ? " (your side)" : "";
  show("winner", summary.winner === null ? "none" : `side ${summary.winner}${yours}`);
  element("winner").dataset.side = summary.winner === null ? "" : String(summary.winner);
  show("history-result", summary.history?.result ?? "not listed");
  show("summary", JSON.stringify(summary));
}

async function run(): Promise<void> {
  const clients = {
    accounts: createClient(AccountService, transport),
    matchmaking: createClient(MatchmakingService, transport),
    match: createClient(MatchService, transport),
  };
  const summary = await playPractice(clients, {
    pair: newDevicePair(), // kept in the page only: a check leaves nothing in the browser's storage
    displayName: `Browser ${randomHex(3)}`,
    shortestTarget: params.get("target") === "shortest",
    onStatus: (text) => show("status", text),
    onRules: (rules) => element("families").replaceChildren(...rules.families.map((family) => {
      const item = document.createElement("li");
      item.textContent = family.name;
      return item;
    })),
    onView: showView,
    onRetry: ({ reason, delayMs }) => show("status", `Calling again in ${Math.ceil(delayMs / 1000)} s (${reason})…`),
  });
  showResult(summary);
  show("status", `The match has ended: ${summary.history?.result ?? "not in the history"}.`);
}

run().then(
  () => { document.body.dataset.done = "ok"; },
  (e: unknown) => {
    const error = ConnectError.from(e);
    const reason = reasonOf(error);
    show("status", `Failed: ${Code[error.code]} ${error.rawMessage}${reason ? ` (${reason})` : ""}`);
    document.body.dataset.reason = reason ?? "";
    document.body.dataset.done = "error";
  });
