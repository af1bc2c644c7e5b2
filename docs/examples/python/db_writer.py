"""Writes the shaper's shaped topic into a database, each request exactly once (docs/clients.md): it reads only
committed records, writes each batch in one database transaction with an insert that skips ids already present, and
commits the offsets after the database. A crash between the two reads the batch again, and the ids make the second
write a no-op.

Needs confluent-kafka; the database here is SQLite (standard library), and the same SQL works on PostgreSQL with
psycopg (placeholders %s instead of ?). Usage: python3 db_writer.py BOOTSTRAP_SERVERS [SHAPED_TOPIC] [DB_FILE]
"""
import sqlite3
import sys
import time

from confluent_kafka import Consumer, TopicPartition


# [loop]
def run(bootstrap_servers, shaped_topic, db):
    db.execute("CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, request_key TEXT NOT NULL,"
               " payload TEXT, queued_ms INTEGER NOT NULL)")
    db.commit()
    consumer = Consumer({
        "bootstrap.servers": bootstrap_servers,
        "group.id": "shaper-db-writer",
        # Only records of committed transactions: what the shaper released, never what an aborted attempt wrote.
        "isolation.level": "read_committed",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    })
    consumer.subscribe([shaped_topic])
    try:
        while True:
            batch = [m for m in consumer.consume(num_messages=500, timeout=0.5) if not m.error()]
            if not batch:
                continue
            try:
                with db:  # one transaction: committed on success, rolled back on an exception
                    db.executemany("INSERT INTO requests (id, request_key, payload, queued_ms) VALUES (?, ?, ?, ?)"
                                   " ON CONFLICT (id) DO NOTHING", [row(m) for m in batch])
            except sqlite3.Error as e:
                # Nothing of the batch is in the database: read it again from its first offsets and retry.
                print(f"database refused the batch: {e}", file=sys.stderr)
                first = {}
                for m in batch:
                    first.setdefault((m.topic(), m.partition()), m.offset())
                for (topic, partition), offset in first.items():
                    consumer.seek(TopicPartition(topic, partition, offset))
                time.sleep(1)
                continue
            # After the database: a crash here only repeats no-ops.
            consumer.commit(asynchronous=False)
    finally:
        consumer.close()


def row(msg):
    headers = dict(msg.headers() or [])
    request_id = headers.get("request.id")  # the producer's id; without one, where the shaper wrote the record
    request_id = request_id.decode("utf-8") if request_id else f"{msg.topic()}-{msg.partition()}-{msg.offset()}"
    queued = headers.get("shaper.queued.ms")  # absent (0) when the record passed at once
    return (request_id, msg.key().decode("utf-8"), msg.value().decode("utf-8"), int(queued) if queued else 0)
# [/loop]


def main():
    bootstrap_servers = sys.argv[1]
    shaped_topic = sys.argv[2] if len(sys.argv) > 2 else "shaper-shaped"
    db = sqlite3.connect(sys.argv[3] if len(sys.argv) > 3 else "requests.db")
    run(bootstrap_servers, shaped_topic, db)


if __name__ == "__main__":
    main()
