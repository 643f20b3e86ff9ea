#!/usr/bin/python3
"""A minimal AAEP producer over gRPC (appendix B.5), for aaep-term's interop test.

It uses python3-grpcio without generated code: AaepMessage is encoded and
decoded by hand here (field 1: bytes json, field 2: string message_type), so
the test shows that aaep-term speaks the appendix's wire format and not only
its own. It prints "port N" once listening, then one line per message it
receives, and exits after the subscription is closed.
"""

import json
import sys
from concurrent import futures

import grpc


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def encode(msg):
    body, mtype = msg
    out = b"\x0a" + varint(len(body)) + body
    if mtype:
        t = mtype.encode()
        out += b"\x12" + varint(len(t)) + t
    return out


def read_varint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return n, i


def decode(b):
    body, mtype, i = b"", "", 0
    while i < len(b):
        key, i = read_varint(b, i)
        field, wire = key >> 3, key & 7
        if wire == 2:
            n, i = read_varint(b, i)
            val, i = b[i:i + n], i + n
            if field == 1:
                body = val
            elif field == 2:
                mtype = val.decode()
        elif wire == 0:
            _, i = read_varint(b, i)
        else:
            raise ValueError("unexpected wire type %d" % wire)
    return body, mtype


def say(line):
    print(line, flush=True)


def event(seq, typ, summary, extra=None):
    ev = {
        "@context": "https://aaep-protocol.org/context/v1",
        "type": "aaep:" + typ,
        "event_id": "evt_py%d" % seq,
        "session_id": "sess_py",
        "sequence_number": seq,
        "timestamp": "2026-06-30T14:22:11.342Z",
        "producer": {"agent_id": "python-agent", "agent_name": "Python Agent"},
        "summary_normal": summary,
    }
    ev.update(extra or {})
    return json.dumps(ev).encode(), "aaep:" + typ


def subscribe(requests, context):
    md = dict(context.invocation_metadata())
    if md.get("authorization") != "Bearer py-token":
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "no valid token")
    body, mtype = next(requests)
    req = json.loads(body)
    say("request %s type=%s" % (req.get("type"), mtype))
    yield json.dumps({
        "type": "subscription.accepted", "subscription_id": "sub_py1", "aaep_version": "1.0.0",
        "producer": {"agent_id": "python-agent", "agent_name": "Python Agent"},
        "honored_capabilities": {"supported_conformance_levels": [1, 2, 3]},
    }).encode(), "subscription.accepted"
    yield event(0, "agent.session.started", "Python started.", {"request_text": "Say hi."})
    yield event(1, "agent.awaiting.confirmation", "Python asks.", {
        "reply_token": "tok_py", "confirmation": {"action": "say hi"}})
    for body, mtype in requests:
        msg = json.loads(body)
        say("got %s type=%s decision=%s" % (msg.get("type"), mtype, msg.get("decision", "")))
        if msg.get("type") == "confirmation.reply":
            yield event(2, "agent.session.completed", "Python heard " + msg.get("decision", "") + ".")
        elif msg.get("type") == "subscription.close":
            return


def get_manifest(_request, _context):
    return json.dumps({"agent_id": "python-agent", "transports_supported": ["grpc"]}).encode(), ""


def main():
    handler = grpc.method_handlers_generic_handler("aaep.v1.AaepService", {
        "Subscribe": grpc.stream_stream_rpc_method_handler(
            subscribe, request_deserializer=decode, response_serializer=encode),
        "GetManifest": grpc.unary_unary_rpc_method_handler(
            get_manifest, request_deserializer=lambda b: b, response_serializer=lambda m: encode(m)),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    say("port %d" % port)
    sys.stdin.read()  # until the test closes our standard input
    server.stop(0)


if __name__ == "__main__":
    main()
