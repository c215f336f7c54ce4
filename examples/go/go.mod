module example.com/hosted-checkout-merchant

go 1.22

require github.com/standard-webhooks/standard-webhooks/libraries v0.0.1
