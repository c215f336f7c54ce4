// Forwards your events from the API's event stream to a URL on your machine, signed with WEBHOOK_SECRET.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func main() {
	hook, err := standardwebhooks.NewWebhook(os.Getenv("WEBHOOK_SECRET"))
	if err != nil {
		log.Fatalf("WEBHOOK_SECRET: %v", err)
	}
	req, _ := http.NewRequest("GET", os.Getenv("HOSTED_CHECKOUT_API_URL")+"/v2/merchant/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+os.Getenv("HOSTED_CHECKOUT_API_KEY"))
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		log.Fatalf("the event stream: %v %v", err, stream)
	}
	// Server-sent events: "event: <name>", "data: <the body>", "id: <position>", a blank line.
	event, lines := "", bufio.NewScanner(stream.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		field, value, _ := strings.Cut(lines.Text(), ": ")
		if field == "event" {
			event = value
		} else if field == "data" && event == "ready" {
			fmt.Println("connected: waiting for events")
		} else if field == "data" {
			var body struct{ ID string }
			json.Unmarshal([]byte(value), &body)
			now := time.Now()
			signature, _ := hook.Sign(body.ID, now, []byte(value))
			post, _ := http.NewRequest("POST", os.Args[1], strings.NewReader(value))
			post.Header = http.Header{"Content-Type": {"application/json"}, "Webhook-Id": {body.ID},
				"Webhook-Timestamp": {strconv.FormatInt(now.Unix(), 10)}, "Webhook-Signature": {signature}}
			if answer, err := http.DefaultClient.Do(post); err != nil {
				fmt.Println(event, body.ID, err)
			} else {
				fmt.Println(event, body.ID, answer.Status)
				answer.Body.Close()
			}
		}
	}
}
