#!/usr/bin/env python3
"""A fake PostgreSQL server for the fleet's tests: enough of the protocol
(version 3, no TLS, trust) to be connected to and sent a query, then it
misbehaves as told.  Not a test itself.

    fakenode.py PORT MODE [MB]

MODE, what it does with each query:
  rows      a RowDescription, then DataRows of 1 MiB, MB MiB of them (256 by
            default), then nothing more (never the end of the answer)
  bigrow    one DataRow that says it is 1 GiB long, then MB MiB of its bytes,
            at most about 1 GB/s (a fast network; over loopback unpaced, one
            read of libpq's can take in hundreds of MB at once)
  notices   NoticeResponses whose messages hold newlines, then an answer
            "1" to the query
  silent    answers nothing at all, not even the start of the connection
  badbytes  answers "A", 0xff, "B" (bytes no UTF-8 server would send), or,
            to a query holding "error", an error whose message is those bytes

Prints "listening" once it is.
"""
import socket
import struct
import sys
import threading
import time

PORT = int(sys.argv[1])
MODE = sys.argv[2]
MB = int(sys.argv[3]) if len(sys.argv) > 3 else 256


def msg(kind, payload=b""):
    return kind + struct.pack("!i", len(payload) + 4) + payload


def recv_exact(c, n):
    b = b""
    while len(b) < n:
        chunk = c.recv(n - len(b))
        if not chunk:
            raise EOFError
        b += chunk
    return b


def startup(c):
    while True:
        n = struct.unpack("!i", recv_exact(c, 4))[0]
        body = recv_exact(c, n - 4)
        code = struct.unpack("!i", body[:4])[0]
        if code in (80877103, 80877104):      # SSLRequest, GSSENCRequest
            c.sendall(b"N")
            continue
        break
    out = msg(b"R", struct.pack("!i", 0))
    for k, v in (("server_version", "15.0"), ("client_encoding", "UTF8"),
                 ("server_encoding", "UTF8"), ("standard_conforming_strings", "on"),
                 ("integer_datetimes", "on"), ("DateStyle", "ISO, MDY")):
        out += msg(b"S", k.encode() + b"\0" + v.encode() + b"\0")
    out += msg(b"K", struct.pack("!ii", 4242, 4343))
    out += msg(b"Z", b"I")
    c.sendall(out)


def rowdesc():
    field = b"v\0" + struct.pack("!ihihih", 0, 0, 25, -1, -1, 0)
    return msg(b"T", struct.pack("!h", 1) + field)


def datarow(value):
    return msg(b"D", struct.pack("!h", 1) + struct.pack("!i", len(value)) + value)


def notice(text):
    return msg(b"N", b"SNOTICE\0VNOTICE\0C00000\0M" + text.encode() + b"\0\0")


def error(message):
    return msg(b"E", b"SERROR\0VERROR\0CXX000\0M" + message + b"\0\0")


def serve(c):
    try:
        if MODE == "silent":
            while c.recv(4096):
                pass
            return
        startup(c)
        while True:
            kind = recv_exact(c, 1)
            n = struct.unpack("!i", recv_exact(c, 4))[0]
            body = recv_exact(c, n - 4)
            if kind == b"X":
                return
            if kind != b"Q":
                continue
            if MODE == "rows":
                c.sendall(rowdesc())
                row = datarow(b"x" * (1024 * 1024 - 16))
                for _ in range(MB):
                    c.sendall(row)
            elif MODE == "bigrow":
                c.sendall(rowdesc())
                c.sendall(b"D" + struct.pack("!ih", 1 << 30, 1) + struct.pack("!i", (1 << 30) - 10))
                chunk = b"y" * (1024 * 1024)
                for _ in range(MB):
                    c.sendall(chunk)
                    time.sleep(0.001)
            elif MODE == "badbytes":
                if b"error" in body:
                    c.sendall(error(b"A\xffB") + msg(b"Z", b"I"))
                else:
                    c.sendall(rowdesc() + datarow(b"A\xffB") + msg(b"C", b"SELECT 1\0") + msg(b"Z", b"I"))
            elif MODE == "notices":
                out = b""
                for i in range(200):
                    out += notice("FAKE-NODE-NOTICE %d\nFAKE-INJECTED-LINE %d" % (i, i))
                out += rowdesc() + datarow(b"1") + msg(b"C", b"SELECT 1\0") + msg(b"Z", b"I")
                c.sendall(out)
            # then wait for the next query, or for the end
    except (EOFError, OSError):
        pass
    finally:
        c.close()


s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", PORT))
s.listen(16)
print("listening", flush=True)
while True:
    conn, _ = s.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
