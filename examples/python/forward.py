# Forwards your events from the API's event stream to a URL on your machine, signed with WEBHOOK_SECRET.
import datetime, json, os, sys, urllib.request
from standardwebhooks import Webhook

hook, event, url = Webhook(os.environ["WEBHOOK_SECRET"]), None, os.environ["HOSTED_CHECKOUT_API_URL"] + "/v2/merchant/events/stream"
stream = urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": "Bearer " + os.environ["HOSTED_CHECKOUT_API_KEY"]}))
for line in stream:  # server-sent events: "event: <name>", "data: <the body>", "id: <position>", a blank line
    field, _, value = line.decode().rstrip("\r\n").partition(": ")
    if field == "event": event = value
    elif field == "data" and event == "ready": print("connected: waiting for events", flush=True)
    elif field == "data":
        event_id, now = json.loads(value)["id"], datetime.datetime.now(datetime.timezone.utc)
        headers = {"Content-Type": "application/json", "webhook-id": event_id, "webhook-timestamp": str(int(now.timestamp())), "webhook-signature": hook.sign(event_id, now, value)}
        try: print(event, event_id, urllib.request.urlopen(urllib.request.Request(sys.argv[1], value.encode(), headers)).status, flush=True)
        except urllib.error.URLError as failed: print(event, event_id, failed, flush=True)
