"""Sends requests to the shaper's input topic with the headers the shaper reads (docs/clients.md).

Needs confluent-kafka (pip install confluent-kafka). Usage: python3 producer.py BOOTSTRAP_SERVERS [TOPIC]
"""
import sys
import uuid

from confluent_kafka import Producer

# [headers]
COST_HEADER = "shaper.cost"  # units of rate the record uses: a whole number from 1 to 1,000,000, ASCII digits
TENANT_HEADER = "tenant"  # the admission key, when the shaper runs with shaper.admission.key.header=tenant
ID_HEADER = "request.id"  # the request's own id, chosen by the client: the database writes each id once
# [/headers]


# [send]
def make_producer(bootstrap_servers):
    # acks=all and idempotence: a retry of the client never duplicates or reorders a key's records.
    return Producer({"bootstrap.servers": bootstrap_servers, "acks": "all", "enable.idempotence": True})


def send(producer, topic, key, request_id, tenant, value, cost=1):
    """Sends one request. The key is the shaper's queue: a record without one is rejected as INVALID_KEY."""
    headers = [(ID_HEADER, request_id.encode("utf-8")), (TENANT_HEADER, tenant.encode("utf-8"))]
    if cost != 1:  # no header: the record costs 1
        headers.append((COST_HEADER, str(cost).encode("ascii")))
    producer.produce(topic, key=key.encode("utf-8"), value=value.encode("utf-8"), headers=headers,
                     on_delivery=_delivered)
    producer.poll(0)  # serves the delivery callbacks of earlier sends


def _delivered(err, msg):
    if err is not None:
        print(f"not delivered: {err}", file=sys.stderr)
# [/send]


def main():
    bootstrap_servers = sys.argv[1]
    topic = sys.argv[2] if len(sys.argv) > 2 else "shaper-input"
    producer = make_producer(bootstrap_servers)
    for i in range(100):
        send(producer, topic, key=f"user-{i % 5}", request_id=str(uuid.uuid4()), tenant=f"tenant-{i % 2}",
             value=f"request {i}", cost=5 if i % 10 == 0 else 1)
    producer.flush()


if __name__ == "__main__":
    main()
