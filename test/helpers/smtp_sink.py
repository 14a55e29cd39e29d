"""A real SMTP server for the tests: aiosmtpd on a loopback port; each message it accepts becomes a JSON file.

Usage: python3 smtp_sink.py DIRECTORY [PORT]   (PORT 0 or none: a free one)
Prints "listening PORT" once it accepts connections; stops on SIGTERM or when its stdin closes.
Each message is written as DIRECTORY/NNNNNN.json: the envelope, the headers as received (name, raw value),
the decoded subject and text body, and the raw message, written whole (temp file, then rename).
"""
import asyncio
import email
import email.policy
import json
import os
import sys
import threading

from aiosmtpd.smtp import SMTP


class Sink:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain",))
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": envelope.rcpt_tos,
            "headers": [[name, value] for name, value in message.raw_items()],
            "subject": str(message["subject"] or ""),
            "replyTo": str(message["reply-to"]) if message["reply-to"] else None,
            "text": body.get_content().replace("\r\n", "\n") if body is not None else None,
            "html": message.get_body(preferencelist=("html",)) is not None,
            "raw": raw.decode("utf-8", "replace"),
        }
        self.count += 1
        final = os.path.join(self.directory, f"{self.count:06d}.json")
        with open(final + ".tmp", "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.rename(final + ".tmp", final)
        return "250 Message accepted for delivery"


def main():
    directory = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    loop = asyncio.new_event_loop()
    sink = Sink(directory)
    server = loop.run_until_complete(loop.create_server(lambda: SMTP(sink, hostname="sink.test"), host="127.0.0.1", port=port))
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    # A test runner that dies closes our stdin: go with it rather than linger on the port.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    loop.run_forever()


main()
