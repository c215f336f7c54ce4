"""A merchant's server for Hosted Checkout: sells one order per id, sends the customer to the hosted
page, fulfils on a verified order_created of a cart it made with its API key, and refunds."""

import json
import logging
import os
import re
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook

API_URL, API_KEY = os.environ["HOSTED_CHECKOUT_API_URL"], os.environ["HOSTED_CHECKOUT_API_KEY"]
STORE_URL = os.environ["STORE_URL"]  # your shop's address, on a domain registered for your merchant
HOOK = Webhook(os.environ["WEBHOOK_SECRET"])

lock = threading.Lock()
orders, by_cart, seen = {}, {}, set()  # your database in real life
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("merchant")


def call(path, idempotency_key, body):
    """One request to the API with the API key; the Idempotency-Key makes a retry of it safe."""
    request = urllib.request.Request(
        API_URL + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {API_KEY}",
            "Idempotency-Key": idempotency_key,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


class Merchant(BaseHTTPRequestHandler):
    def answer(self, status, body=b"", headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/webhooks":
            return self.webhook(raw)
        route = re.fullmatch(r"/orders/([\w-]+)/(pay|refund)", self.path)
        if not route:
            return self.answer(404)
        (self.pay if route[2] == "pay" else self.refund)(route[1])

    def pay(self, order_id):
        """Creates the order's cart (the same cart however often the customer clicks) and redirects to it."""
        page = f"{STORE_URL}/orders/{order_id}"
        item = {"title": "T-shirt", "description": "Organic cotton", "price": 2500, "quantity": 1,
                "url": f"{STORE_URL}/t-shirt", "image": f"{STORE_URL}/t-shirt.png", "zeroPay": False}
        cart = {"cartObject": {
            "store": {"platformUuid": os.environ["HOSTED_CHECKOUT_PLATFORM_UUID"], "name": "Python Store", "url": STORE_URL},
            "cart": {"currency": "EUR", "country": "IE", "extra": {"orderId": order_id}, "items": [item],
                     "merchantUrls": {"successUrl": page, "failureUrl": page}},
        }}
        status, body = call("/v2/public/api/cart/", f"order-{order_id}", cart)
        if status != 200:
            log.warning("create-cart failed: %s %s", status, body)
            return self.answer(502, b"checkout unavailable")
        cart_id = json.loads(body)["data"]["cartId"]
        with lock:
            if order_id not in orders:
                order = {"id": order_id, "cartId": cart_id, "amount": 2500, "currency": "EUR", "status": "awaiting_payment"}
                orders[order_id] = by_cart[cart_id] = order
        location = f"{os.environ['HOSTED_CHECKOUT_CHECKOUT_URL']}/?token={cart_id}"
        self.answer(303, headers={"Location": location})

    def webhook(self, raw):
        """Verifies the signature over the raw body, acknowledges, and acts once per event id."""
        try:
            event = HOOK.verify(raw, dict(self.headers))
        except Exception:  # the library raises WebhookVerificationError, or a header error
            return self.answer(400, b"invalid signature")
        self.answer(200)
        data = event["data"]
        with lock:
            if event["id"] in seen:
                return  # retries and replays carry the same id
            seen.add(event["id"])
            # Signed is not enough: anyone can make and pay a cart for you; yours were created with your API key.
            order = by_cart.get(data["cartId"])
            if not order or data["createdWith"] != "api_key" or (data["amount"], data["currency"]) != (order["amount"], order["currency"]):
                return log.info("%s of cart %s: not one of my orders, ignored", event["event"], data["cartId"])
            # A manual-capture cart's order_created says "authorized": ship, then capture.
            status = {"order_created": "fulfilled", "order_refunded": "refunded"}.get(event["event"])
            if status:
                order["status"] = status
                log.info("%s order %s (cart %s), verified event %s", status, order["id"], order["cartId"], event["id"])

    def refund(self, order_id):
        """Asks the Order API to refund the whole order; its order_refunded then confirms it."""
        with lock:
            order = orders.get(order_id)
        if not order:
            return self.answer(404)
        status, body = call(f"/v2/merchant/orders/{order['cartId']}/refunds", f"refund-{order_id}",
                            {"amount": order["amount"], "reason": "Customer request"})
        self.answer(status, body, {"Content-Type": "application/json"})

    def log_message(self, *args):
        pass  # one line per order change is enough


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Merchant)
    log.info("listening on port %s", server.server_port)  # bound: requests are taken from now
    server.serve_forever()
