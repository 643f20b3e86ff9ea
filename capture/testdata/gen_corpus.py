#!/usr/bin/env python3
"""Writes the capture corpus in corpus/: clean sessions and one capture per
violation kind. Run it from this directory after changing it; the tests
read the files it writes (and list the violations each must show)."""
import gzip
import json

CTX = "https://aaep-protocol.org/context/v1"
BASE = "2026-06-30T14:22:{:06.3f}Z"


class Session:
    def __init__(self, sid, agent="bank-agent", seq=True):
        self.sid, self.agent, self.seq, self.n, self.t = sid, agent, seq, 0, 10.0

    def ev(self, typ, dt=0.1, **fields):
        self.t += dt
        e = {"@context": CTX, "type": "aaep:agent." + typ, "event_id": "evt_%s%03d" % (self.sid, self.n),
             "session_id": "sess_" + self.sid, "timestamp": BASE.format(self.t),
             "producer": {"agent_id": self.agent, "agent_name": "Bank Helper"}}
        if self.seq:
            e["sequence_number"] = self.n
        self.n += 1
        e.update(fields)
        return e

    def started(self, **kw):
        return self.ev("session.started", summary_normal="Bank Helper is starting.", **kw)

    def state(self, a, b, **kw):
        return self.ev("state.changed", from_state=a, to_state=b, summary_normal="Now " + b + ".", **kw)

    def invoked(self, tool, call, irreversible=False, **kw):
        return self.ev("tool.invoked", tool=tool, tool_call_id=call, irreversible=irreversible,
                       risk_level="high" if irreversible else "low", summary_normal="Calling " + tool + ".", **kw)

    def completed(self, tool, call, **kw):
        return self.ev("tool.completed", tool=tool, tool_call_id=call, status="success", **kw)

    def confirm(self, token, default="reject", **kw):
        f = dict(urgency="critical", action="Transfer $500 to savings.", consequence="Money moves at once.",
                 reply_token=token, timeout_seconds=300, default_decision=default, risk_level="high", irreversible=True)
        f.update(kw)
        return self.ev("awaiting.confirmation", **f)

    def chunk(self, out, pos, text, complete, **kw):
        return self.ev("output.streaming", output_id=out, position=pos, chunk=text, complete=complete, **kw)

    def done(self, **kw):
        return self.ev("session.completed", summary_normal="Done.", **kw)


def reply(token, decision):
    return {"type": "confirmation.reply", "reply_token": token, "decision": decision,
            "subscription_id": "sub_corpus01", "timestamp": "2026-06-30T14:22:30.000Z"}


def write(name, msgs, header=True, truncate=False):
    lines = []
    if header:
        lines.append(json.dumps({"aaep_capture": 1, "started_at": "2026-06-30T14:22:10.000Z",
                                 "endpoint": "http://127.0.0.1:8080", "transport": "sse",
                                 "subscriber": "aaep-capture", "redacted": False, "tool": "gen_corpus.py"}))
    t = 0.0
    for m in msgs:
        d = "i"
        if isinstance(m, tuple):
            d, m = m
        t += 0.05
        lines.append(json.dumps([round(t, 6), d, m], ensure_ascii=False) if header else json.dumps(m, ensure_ascii=False))
    text = "\n".join(lines) + "\n"
    if truncate:
        text = text[:-40]
    if name.endswith(".gz"):
        with gzip.open("corpus/" + name, "wt", encoding="utf-8") as f:
            f.write(text)
        return
    with open("corpus/" + name, "w", encoding="utf-8") as f:
        f.write(text)


def clean():
    a = Session("clean01")
    b = Session("clean02")
    return [
        a.started(), a.state("idle", "thinking"), a.invoked("fetch_balance", "call_a1"), a.completed("fetch_balance", "call_a1"),
        a.state("thinking", "awaiting_input"), a.confirm("rpl_clean01token"), ("o", reply("rpl_clean01token", "accept")),
        a.state("awaiting_input", "calling_tool"), a.invoked("transfer_funds", "call_a2", irreversible=True),
        a.completed("transfer_funds", "call_a2"), a.state("calling_tool", "writing_output"),
        a.chunk("out_a1", 0, "Transferred $500. ", False), a.chunk("out_a1", 18, "New balance: $12,000.", True), a.done(),
        b.started(), b.state("idle", "awaiting_input"), b.confirm("rpl_clean02token"), ("o", reply("rpl_clean02token", "reject")),
        b.state("awaiting_input", "thinking"), b.done(),
    ]


def main():
    msgs = clean()
    write("clean.aaep", msgs)
    write("clean.jsonl", [m for m in msgs if not isinstance(m, tuple)], header=False)
    write("clean.jsonl.gz", [m for m in msgs if not isinstance(m, tuple)], header=False)
    write("truncated.aaep", msgs, truncate=True)

    s = Session("brack01")
    write("bracketing.aaep", [s.started(), s.done(), s.ev("session.errored", urgency="critical", error_category="permanent",
                                                          summary_normal="Failed."), s.invoked("late_tool", "call_b1")])
    s = Session("nostart1")
    write("no-start.aaep", [s.invoked("fetch", "call_n1"), s.completed("fetch", "call_n1"), s.done()])
    s = Session("tools01")
    write("tool-pairing.aaep", [s.started(), s.completed("fetch", "call_t1"), s.invoked("search", "call_t2"), s.done()])
    s = Session("irrev01")
    write("unconfirmed.aaep", [s.started(), s.state("idle", "thinking"), s.invoked("transfer_funds", "call_i1", irreversible=True),
                               s.completed("transfer_funds", "call_i1"), s.done()])
    s = Session("reject01")
    write("after-reject.aaep", [s.started(), s.confirm("rpl_reject01token"), ("o", reply("rpl_reject01token", "reject")),
                                s.invoked("transfer_funds", "call_r1", irreversible=True), s.completed("transfer_funds", "call_r1"), s.done()])
    s = Session("follow01")
    write("no-follow-up.aaep", [s.started(), s.confirm("rpl_follow01token"), ("o", reply("rpl_follow01token", "reject")), s.done()])
    s = Session("accept01")
    write("accept-no-action.aaep", [s.started(), s.confirm("rpl_accept01token"), ("o", reply("rpl_accept01token", "accept")),
                                    s.state("awaiting_input", "thinking"), s.done()])
    s = Session("output01")
    write("output.aaep", [s.started(), s.chunk("out_o1", 0, "One. ", False), s.chunk("out_o1", 5, "Two.", True),
                          s.chunk("out_o1", 9, "Three.", True), s.chunk("out_o2", 10, "Ten. ", False), s.chunk("out_o2", 4, "Four.", False),
                          s.done()])
    s = Session("times01")
    e1, e2 = s.started(), s.state("idle", "thinking")
    e3 = s.state("thinking", "deciding")
    e3["timestamp"] = BASE.format(1.0)
    write("timestamps.aaep", [e1, e2, e3, s.done()])
    s = Session("seq01")
    e1, e2, e3 = s.started(), s.state("idle", "thinking"), s.state("thinking", "deciding")
    s.n += 2
    write("sequence.aaep", [e1, e3, e2, s.state("deciding", "thinking"), s.done()])
    s = Session("dup01")
    e1 = s.started()
    e2 = s.state("idle", "thinking")
    write("duplicate.aaep", [e1, e2, e2, s.done()])
    s = Session("dflt01")
    write("default-decision.aaep", [s.started(), s.confirm("rpl_dflt01token", default="accept"), s.done()])
    s = Session("urg01")
    write("urgency.aaep", [s.started(), s.ev("session.errored", urgency="normal", error_category="permanent", summary_normal="Failed.")])
    s = Session("schema01")
    e1 = s.started()
    bad = s.state("idle", "thinking")
    bad["event_id"] = "not-an-event-id"
    write("schema.aaep", [e1, bad, s.done()])


main()
