"""Publishes the shaper's rejected records to its input topic again once shaper.retry.after.ms has passed
(docs/clients.md). Records that may not be retried, or failed too often, are given up.

At least once: a crash between a retry's send and the commit of its offset sends it again, which the database
writer's idempotent write absorbs. Needs confluent-kafka.
Usage: python3 retrier.py BOOTSTRAP_SERVERS [REJECTED_TOPIC] [INPUT_TOPIC]
"""
import heapq
import itertools
import random
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

# [headers]
REASON = "shaper.reason"
RETRY_AFTER_MS = "shaper.retry.after.ms"
OMITTED = "shaper.omitted"  # the rejected topic could not take the record whole: it cannot be retried
ATTEMPT = "retry.attempt"  # the client's own count (headers other than the shaper's pass through it)
# [/headers]
BACKOFF_MS = 100  # doubled per attempt, up to MAX_BACKOFF_MS
MAX_BACKOFF_MS = 30_000
MAX_ATTEMPTS = 10


def header(msg, name):
    for key, value in msg.headers() or []:
        if key == name:
            return value.decode("utf-8")
    return None


# [loop]
def run(bootstrap_servers, rejected_topic, input_topic, give_up):
    consumer = Consumer({
        "bootstrap.servers": bootstrap_servers,
        "group.id": "shaper-retrier",
        "isolation.level": "read_committed",  # the shaper writes under exactly-once
        "enable.auto.commit": False,  # committed by hand, once a record's retry has been sent
        "auto.offset.reset": "earliest",
    })
    producer = Producer({"bootstrap.servers": bootstrap_servers, "acks": "all", "enable.idempotence": True})
    pending = []  # heap of (due time, sequence, message, attempt)
    sequence = itertools.count()
    open_offsets = {}  # (topic, partition) -> offsets read but not done
    next_offsets = {}  # (topic, partition) -> the offset after the last one read

    def done(msg):
        open_offsets[(msg.topic(), msg.partition())].discard(msg.offset())

    def commit():
        offsets = []
        for tp, next_offset in next_offsets.items():
            waiting = open_offsets.get(tp)
            offsets.append(TopicPartition(tp[0], tp[1], min(waiting) if waiting else next_offset))
        if offsets:
            consumer.commit(offsets=offsets, asynchronous=False)

    def on_revoke(_consumer, partitions):
        # Their records are read again by the next owner from the last committed offset.
        commit()
        revoked = {(p.topic, p.partition) for p in partitions}
        pending[:] = [p for p in pending if (p[2].topic(), p[2].partition()) not in revoked]
        heapq.heapify(pending)
        for tp in revoked:
            open_offsets.pop(tp, None)
            next_offsets.pop(tp, None)

    consumer.subscribe([rejected_topic], on_revoke=on_revoke)
    try:
        while True:
            wait = 0.5 if not pending else max(0.0, min(0.5, pending[0][0] - time.time()))
            for msg in consumer.consume(num_messages=500, timeout=wait):
                if msg.error():
                    print(f"consumer error: {msg.error()}", file=sys.stderr)
                    continue
                tp = (msg.topic(), msg.partition())
                open_offsets.setdefault(tp, set()).add(msg.offset())
                next_offsets[tp] = msg.offset() + 1
                retry_after = header(msg, RETRY_AFTER_MS)
                attempt = int(header(msg, ATTEMPT) or 0)
                if retry_after is None or header(msg, OMITTED) is not None or attempt >= MAX_ATTEMPTS:
                    give_up(msg)  # INVALID_* and RECORD_TOO_LARGE never succeed
                    done(msg)
                    continue
                # The least wait for this record alone, from its rejection (a little before now), plus a random
                # part of a backoff that doubles per attempt: records rejected together must not return together.
                backoff_ms = min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt)
                due = time.time() + (int(retry_after) + random.uniform(0, backoff_ms)) / 1000
                heapq.heappush(pending, (due, next(sequence), msg, attempt + 1))
            sent = []
            while pending and pending[0][0] <= time.time():
                _, _, msg, attempt = heapq.heappop(pending)
                headers = [(k, v) for k, v in msg.headers() or []
                           if (not k.startswith("shaper.") or k == "shaper.cost") and k != ATTEMPT]
                headers.append((ATTEMPT, str(attempt).encode("utf-8")))
                producer.produce(input_topic, key=msg.key(), value=msg.value(), headers=headers)
                sent.append(msg)
            if sent:
                if producer.flush(30) > 0:  # acknowledged before their offsets may be committed
                    raise RuntimeError(f"cannot publish retries to {input_topic}")
                for msg in sent:
                    done(msg)
            commit()
    finally:
        consumer.close()
# [/loop]


def main():
    bootstrap_servers = sys.argv[1]
    rejected_topic = sys.argv[2] if len(sys.argv) > 2 else "shaper-rejected"
    input_topic = sys.argv[3] if len(sys.argv) > 3 else "shaper-input"
    run(bootstrap_servers, rejected_topic, input_topic,
        give_up=lambda msg: print(f"given up: {header(msg, REASON)} {header(msg, 'shaper.detail')}", file=sys.stderr))


if __name__ == "__main__":
    main()
