// A merchant's server for Hosted Checkout: sells one order per id, sends the customer to the hosted
// page, fulfils on a verified order_created of a cart it made with its API key, and refunds.
package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

type order struct {
	ID, CartID, Currency, Status string // Status: awaiting_payment, fulfilled, refunded
	Amount                       int
}

type event struct {
	ID    string `json:"id"`
	Event string `json:"event"`
	Data  struct {
		CartID      string `json:"cartId"`
		Amount      int    `json:"amount"`
		Currency    string `json:"currency"`
		CreatedWith string `json:"createdWith"`
	} `json:"data"`
}

var (
	apiURL, apiKey = os.Getenv("HOSTED_CHECKOUT_API_URL"), os.Getenv("HOSTED_CHECKOUT_API_KEY")
	storeURL       = os.Getenv("STORE_URL") // your shop's address, on a domain registered for your merchant
	mu             sync.Mutex
	orders, byCart = map[string]*order{}, map[string]*order{} // your database in real life
	seen           = map[string]bool{}
)

// call sends one request to the API with the API key; the Idempotency-Key makes a retry of it safe.
func call(path, idempotencyKey string, body any) (int, []byte, error) {
	payload, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", apiURL+path, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Idempotency-Key", idempotencyKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	return res.StatusCode, answer, err
}

// pay creates the order's cart (the same cart however often the customer clicks) and redirects to it.
func pay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	cart := map[string]any{"cartObject": map[string]any{
		"store": map[string]any{"platformUuid": os.Getenv("HOSTED_CHECKOUT_PLATFORM_UUID"), "name": "Go Store", "url": storeURL},
		"cart": map[string]any{"currency": "EUR", "country": "IE", "extra": map[string]any{"orderId": id},
			"items":        []any{map[string]any{"title": "T-shirt", "description": "Organic cotton", "price": 2500, "quantity": 1, "url": storeURL + "/t-shirt", "image": storeURL + "/t-shirt.png", "zeroPay": false}},
			"merchantUrls": map[string]any{"successUrl": storeURL + "/orders/" + id, "failureUrl": storeURL + "/orders/" + id}},
	}}
	status, answer, err := call("/v2/public/api/cart/", "order-"+id, cart)
	var created struct{ Data struct{ CartID string } }
	if err != nil || status != 200 || json.Unmarshal(answer, &created) != nil {
		log.Printf("create-cart failed: %d %s %v", status, answer, err)
		http.Error(w, "checkout unavailable", http.StatusBadGateway)
		return
	}
	mu.Lock()
	o := &order{ID: id, CartID: created.Data.CartID, Amount: 2500, Currency: "EUR", Status: "awaiting_payment"}
	if orders[id] == nil {
		orders[id], byCart[o.CartID] = o, o
	}
	mu.Unlock()
	http.Redirect(w, r, os.Getenv("HOSTED_CHECKOUT_CHECKOUT_URL")+"/?token="+o.CartID, http.StatusSeeOther)
}

// webhooks verifies the signature over the raw body, acknowledges, and acts once per event id.
func webhooks(hook *standardwebhooks.Webhook) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		var e event
		if err != nil || hook.Verify(raw, r.Header) != nil || json.Unmarshal(raw, &e) != nil {
			http.Error(w, "invalid signature", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		w.WriteHeader(http.StatusOK)
		if seen[e.ID] {
			return // retries and replays carry the same id
		}
		seen[e.ID] = true
		// Signed is not enough: anyone can make and pay a cart for you; yours were created with your API key.
		o := byCart[e.Data.CartID]
		if o == nil || e.Data.CreatedWith != "api_key" || e.Data.Amount != o.Amount || e.Data.Currency != o.Currency {
			log.Printf("%s of cart %s: not one of my orders, ignored", e.Event, e.Data.CartID)
			return
		}
		switch e.Event {
		case "order_created": // a manual-capture cart would say "authorized" here: ship, then capture
			o.Status = "fulfilled"
		case "order_refunded":
			o.Status = "refunded"
		default:
			return
		}
		log.Printf("%s order %s (cart %s), verified event %s", o.Status, o.ID, o.CartID, e.ID)
	}
}

// refund asks the Order API to refund the whole order; its order_refunded then confirms it.
func refund(w http.ResponseWriter, r *http.Request) {
	mu.Lock()
	o := orders[r.PathValue("id")]
	mu.Unlock()
	if o == nil {
		http.NotFound(w, r)
		return
	}
	status, answer, err := call("/v2/merchant/orders/"+o.CartID+"/refunds", "refund-"+o.ID, map[string]any{"amount": o.Amount, "reason": "Customer request"})
	if err != nil {
		status, answer = http.StatusBadGateway, []byte(err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(answer)
}

func main() {
	hook, err := standardwebhooks.NewWebhook(os.Getenv("WEBHOOK_SECRET"))
	if err != nil {
		log.Fatalf("WEBHOOK_SECRET: %v", err)
	}
	http.HandleFunc("POST /orders/{id}/pay", pay)
	http.HandleFunc("POST /orders/{id}/refund", refund)
	http.HandleFunc("POST /webhooks", webhooks(hook))
	listener, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on port %s", os.Getenv("PORT")) // bound: requests are taken from now
	log.Fatal(http.Serve(listener, nil))
}
